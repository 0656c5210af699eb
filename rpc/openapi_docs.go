package rpc

import (
	_ "embed"
	"encoding/json"
)

//go:generate go run ./internal/gendoc -o openapi_docs.json

// openapiDocs holds the Go doc comments of the exported types and struct
// fields of the module, by "<import path>.<Type>" and
// "<import path>.<Type>.<Field>", extracted by go generate: the
// descriptions of the document's schemas.
//
//go:embed openapi_docs.json
var openapiDocs []byte

var typeDocs, fieldDocs = loadDocs()

func loadDocs() (types, fields map[string]string) {
	var d struct {
		Types  map[string]string `json:"types"`
		Fields map[string]string `json:"fields"`
	}
	if err := json.Unmarshal(openapiDocs, &d); err != nil {
		panic("rpc: openapi_docs.json: " + err.Error())
	}
	return d.Types, d.Fields
}
