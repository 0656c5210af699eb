package rpc

import (
	"embed"
	"net/http"
	"path"
	"strings"
)

// docsFiles is the /docs page: Swagger UI's bundle and style sheet,
// vendored from the npm package swagger-ui-dist 5.35.0 (Apache-2.0, its
// licence beside them; clients/typescript/package.json pins it, and
// `make docs-assets` copies them again), an index page and the script that
// points it at /openapi.json. They are served from the binary: the page
// needs no network.
//
//go:embed docs
var docsFiles embed.FS

var docsTypes = map[string]string{
	".html": "text/html; charset=utf-8",
	".js":   "text/javascript; charset=utf-8",
	".css":  "text/css; charset=utf-8",
}

// serveDocs serves /docs (the page) and /docs/<asset>.
func serveDocs(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	name := strings.TrimPrefix(r.URL.Path, "/docs")
	name = strings.TrimPrefix(name, "/")
	if name == "" {
		name = "index.html"
	}
	ctype, ok := docsTypes[path.Ext(name)]
	b, err := docsFiles.ReadFile("docs/" + name)
	if !ok || err != nil || strings.Contains(name, "/") {
		http.NotFound(w, r)
		return
	}
	w.Header().Set("Content-Type", ctype)
	if name != "index.html" {
		w.Header().Set("Cache-Control", "public, max-age=86400")
	}
	w.WriteHeader(http.StatusOK)
	if r.Method == http.MethodGet {
		_, _ = w.Write(b)
	}
}
