// Command gendoc extracts the doc comments of the module's exported types
// and struct fields (and of the fields of package rpc's unexported types,
// its own argument types) into a JSON file, {"types": {"<import path>.<Type>":
// doc}, "fields": {"<import path>.<Type>.<Field>": doc}}, which the rpc
// package embeds as the descriptions of /openapi.json's schemas. It is run
// by go generate in rpc/; CI checks that the file is up to date.
//
//	go run ./internal/gendoc -o openapi_docs.json
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

func main() {
	out := flag.String("o", "openapi_docs.json", "output file")
	flag.Parse()
	root, module, err := moduleRoot()
	if err != nil {
		fail(err)
	}
	types, fields := map[string]string{}, map[string]string{}
	defs := map[string]string{} // "<pkg>.<X>" of `type X Y` -> "<pkg>.<Y>"
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			name := d.Name()
			if path != root && (strings.HasPrefix(name, ".") || name == "internal" || name == "cmd" ||
				name == "testdata" || name == "node_modules" || name == "clients") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		rel, err := filepath.Rel(root, filepath.Dir(path))
		if err != nil {
			return err
		}
		pkg := module
		if rel != "." {
			pkg += "/" + filepath.ToSlash(rel)
		}
		return extract(path, pkg, pkg == module+"/rpc", types, fields, defs)
	})
	if err != nil {
		fail(err)
	}
	inherit(fields, defs)
	b, err := marshal(map[string]map[string]string{"types": types, "fields": fields})
	if err != nil {
		fail(err)
	}
	if err := os.WriteFile(*out, b, 0o644); err != nil {
		fail(err)
	}
}

// extract adds the docs of the file's exported types and of their fields;
// with unexported, the fields of its unexported types too (package rpc's
// own argument types, such as eventListArgs, are unexported).
//
// A type defined as another struct type of its package (type CreateInput
// Fields) is noted in defs: its fields are that type's, and so are their
// docs (copied after every file is read, see inherit).
func extract(path, pkg string, unexported bool, types, fields, defs map[string]string) error {
	f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ParseComments)
	if err != nil {
		return err
	}
	for _, decl := range f.Decls {
		gd, ok := decl.(*ast.GenDecl)
		if !ok || gd.Tok != token.TYPE {
			continue
		}
		for _, spec := range gd.Specs {
			ts := spec.(*ast.TypeSpec)
			if !ts.Name.IsExported() && !unexported {
				continue
			}
			if ts.Name.IsExported() {
				doc := ts.Doc
				if doc == nil && len(gd.Specs) == 1 {
					doc = gd.Doc
				}
				if d := text(doc); d != "" {
					types[pkg+"."+ts.Name.Name] = d
				}
			}
			if id, ok := ts.Type.(*ast.Ident); ok && ts.Assign == 0 {
				defs[pkg+"."+ts.Name.Name] = pkg + "." + id.Name
				continue
			}
			st, ok := ts.Type.(*ast.StructType)
			if !ok {
				continue
			}
			for _, fl := range st.Fields.List {
				d := text(fl.Doc)
				if d == "" {
					d = text(fl.Comment)
				}
				if d == "" {
					continue
				}
				for _, n := range fl.Names {
					if n.IsExported() {
						fields[pkg+"."+ts.Name.Name+"."+n.Name] = d
					}
				}
			}
		}
	}
	return nil
}

// inherit gives the fields of each type defined as another (defs) the docs
// of that type's fields, where they have none of their own.
func inherit(fields, defs map[string]string) {
	added := map[string]string{}
	for def, of := range defs {
		for key, doc := range fields {
			if name, ok := strings.CutPrefix(key, of+"."); ok && !strings.Contains(name, ".") {
				if _, has := fields[def+"."+name]; !has {
					added[def+"."+name] = doc
				}
			}
		}
	}
	for k, v := range added {
		fields[k] = v
	}
}

// text is a comment as one paragraph per blank-line-separated block.
func text(g *ast.CommentGroup) string {
	if g == nil {
		return ""
	}
	var paras []string
	for p := range strings.SplitSeq(g.Text(), "\n\n") {
		if p = strings.Join(strings.Fields(p), " "); p != "" {
			paras = append(paras, p)
		}
	}
	return strings.Join(paras, "\n\n")
}

func moduleRoot() (dir, module string, err error) {
	dir, err = os.Getwd()
	if err != nil {
		return "", "", err
	}
	for {
		b, err := os.ReadFile(filepath.Join(dir, "go.mod"))
		if err == nil {
			for line := range strings.SplitSeq(string(b), "\n") {
				if m, ok := strings.CutPrefix(strings.TrimSpace(line), "module "); ok {
					return dir, strings.Trim(strings.TrimSpace(m), `"`), nil
				}
			}
			return "", "", fmt.Errorf("%s: no module line", dir)
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", "", fmt.Errorf("no go.mod above the working directory")
		}
		dir = parent
	}
}

// marshal writes the maps with sorted keys, one entry a line.
func marshal(v map[string]map[string]string) ([]byte, error) {
	var b bytes.Buffer
	b.WriteString("{\n")
	for i, section := range []string{"fields", "types"} {
		fmt.Fprintf(&b, "  %q: {", section)
		keys := make([]string, 0, len(v[section]))
		for k := range v[section] {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for j, k := range keys {
			kb, _ := json.Marshal(k)
			vb, err := json.Marshal(v[section][k])
			if err != nil {
				return nil, err
			}
			sep := ","
			if j == len(keys)-1 {
				sep = ""
			}
			fmt.Fprintf(&b, "\n    %s: %s%s", kb, vb, sep)
		}
		if len(keys) > 0 {
			b.WriteString("\n  ")
		}
		b.WriteString("}")
		if i == 0 {
			b.WriteString(",")
		}
		b.WriteString("\n")
	}
	b.WriteString("}\n")
	return b.Bytes(), nil
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "gendoc:", err)
	os.Exit(1)
}
