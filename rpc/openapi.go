package rpc

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/commercekit/commerce"
	"github.com/commercekit/commerce/money"
	"github.com/commercekit/commerce/order"
	"github.com/commercekit/commerce/payment"
	"github.com/commercekit/commerce/stock"
)

// transportErrors are the codes every operation can return, whatever it
// does: the transport's checks and failures (docs/api.md section 2).
// operation_not_found (404) and method_not_allowed (405) answer paths and
// methods the document does not list, so no operation lists them.
var transportErrors = []string{
	commerce.EValidation, commerce.EInvalidToken, commerce.EForbidden,
	commerce.ERequestTooLarge, commerce.EInternal, commerce.EUnavailable,
}

// errorData is the schema of the data of an error code, where the code has
// one (docs/api.md section 2); a code not listed
// here may carry any data. The data is left out when an error has none.
func (g *schemaGen) errorData(code string) (schema, bool) {
	str := func(d string) schema { return schema{"type": "string", "description": d} }
	obj := func(props schema, required ...string) schema {
		s := schema{"type": "object", "properties": props}
		if len(required) > 0 {
			s["required"] = required
		}
		return s
	}
	integer := schema{"type": "integer"}
	switch code {
	case commerce.EValidation:
		return schema{"type": "array", "items": schema{"type": "string"},
			"description": "The problems, each naming its field path (`items[2].quantity: must be a positive integer`)."}, true
	case commerce.EInternal, commerce.EUnavailable:
		return schema{"not": schema{}, "description": "Never sent: details go to the log."}, true
	case commerce.EInvalidToken, commerce.EForbidden:
		return schema{"type": "string"}, true
	case commerce.EMaxCategoriesPerProduct:
		return schema{"type": "integer", "description": "The most categories a product may have."}, true
	case commerce.EProductNotFound, commerce.EBaseProductNotFound, commerce.EVariantNotFound, commerce.EProductDiscontinued,
		commerce.ENoSuitablePrice:
		return str("The product's id."), true
	case commerce.ECategoryNotFound, commerce.EParentCategoryNotFound, commerce.ECategoryNotEmpty:
		return str("The category's id."), true
	case commerce.EMissingClassification, commerce.EEmptyClassificationValue, commerce.EClassificationValueNotBoolean,
		commerce.EClassificationValueNotNumber:
		return str("The classification's id."), true
	case commerce.EVariationDataNotFound:
		return str("The modifier's name."), true
	case commerce.EPriceInvalid:
		return schema{"type": "object", "description": "The price as given."}, true
	case commerce.EPriceCurrencyInvalid:
		return str("The currency as given."), true
	case commerce.EPriceCountryInvalid, commerce.EInvalidCountry:
		return str("The country as given."), true
	case commerce.EInvalidState:
		return str("The state as given."), true
	case commerce.EInvalidMedia:
		return obj(schema{"reason": str("Why the file is refused.")}, "reason"), true
	case commerce.EMediaNotFound:
		return str("The image's id."), true
	case commerce.EMediaInUse:
		return schema{"type": "array", "items": schema{"type": "string"}, "description": "The ids of the products that list the image."}, true
	case commerce.EPriceValidDates:
		return obj(schema{"validFrom": schema{}, "validUntil": schema{}}), true
	case commerce.EDuplicateKey:
		return obj(schema{"index": str("The unique index: the other properties are its values.")}, "index"), true
	case commerce.EPromotionNotFound, commerce.ETaxNotFound, commerce.EShippingNotFound, commerce.ECartNotFound,
		commerce.ECustomerNotFound, commerce.EAddressNotFound, commerce.EClientNotFound, commerce.EWebhookNotFound,
		commerce.EDeliveryNotFound, commerce.EOrderNotFound, commerce.EFulfillmentNotFound:
		return str("The id as given."), true
	case commerce.ECartNotActive:
		return str("The cart's status."), true
	case commerce.EMaxQuantityPerProduct:
		return obj(schema{"productId": schema{"type": "string"}, "requestedQuantity": integer, "maxQuantityAllowed": integer},
			"productId", "requestedQuantity", "maxQuantityAllowed"), true
	case commerce.EMaxNumberOfEntries:
		return obj(schema{"requestedEntries": integer, "maxEntriesAllowed": integer}, "requestedEntries", "maxEntriesAllowed"), true
	case commerce.ENotEnoughStock:
		return g.of(reflect.TypeFor[stock.Shortage](), modeOut), true
	case commerce.EStockNotFound:
		return g.of(reflect.TypeFor[stock.Key](), modeOut), true
	case commerce.ECouponNotFound, commerce.ECouponUsageLimitReached:
		return str("The coupon's code."), true
	case commerce.EPaymentFailed:
		return g.of(reflect.TypeFor[payment.Failure](), modeOut), true
	case commerce.ETooManyAttempts:
		return obj(schema{"retryAfter": schema{"type": "integer", "minimum": 1, "description": "Seconds until a new try."}}, "retryAfter"), true
	case commerce.EInvalidOrderState:
		return g.of(reflect.TypeFor[order.StateData](), modeOut), true
	case commerce.EFulfillmentExceedsQuantity:
		return obj(schema{"itemId": schema{"type": "string"}, "remaining": integer}, "itemId", "remaining"), true
	case commerce.ERefundExceedsCaptured:
		return obj(schema{"available": g.of(reflect.TypeFor[money.Money](), modeOut)}, "available"), true
	}
	return nil, false
}

// errorDoc explains the codes of the transport in their status's
// description.
var errorDoc = map[string]string{
	commerce.EValidation:           "an argument is missing, of the wrong type or out of range, or a business rule refuses it",
	commerce.EInvalidToken:         "the bearer token is missing, malformed, expired or badly signed",
	commerce.EForbidden:            "the token's scope is not enough",
	commerce.ERequestTooLarge:      "the body is over 1 MiB",
	commerce.EInternal:             "a fault of the service (details go to the log)",
	commerce.EUnavailable:          "the storage is unreachable",
	commerce.EIdempotencyKeyInUse:  "a request with the same Idempotency-Key is still running",
	commerce.EIdempotencyKeyReused: "the Idempotency-Key was used with another operation or other arguments",
}

// partialResult marks a result whose records may hold only some of their
// fields (the `fields` argument of info and list operations).
type partialResult struct{ v any }

// Partial declares, as an Op's Result, a result of v's type whose records
// may hold only the fields asked for.
func Partial(v any) any { return partialResult{v} }

// Document returns the OpenAPI 3.1 document of the server's operations
// (GET /openapi.json), built from the registered operations once, on the
// first call, which must come after every registration.
func (s *Server) Document() []byte {
	s.docOnce.Do(func() {
		b, err := json.MarshalIndent(s.buildDocument(), "", "  ")
		if err != nil {
			panic("rpc: the OpenAPI document does not marshal: " + err.Error())
		}
		s.doc = append(b, '\n')
	})
	return s.doc
}

func (s *Server) buildDocument() schema {
	g := newSchemaGen()
	keys := make([]string, 0, len(s.routes))
	for k := range s.routes {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	paths := schema{}
	services := map[string]bool{}
	for _, k := range keys {
		rt := s.routes[k]
		service, rest, _ := strings.Cut(k, "/")
		version, _, _ := strings.Cut(rest, "/")
		services[service] = true
		item := schema{"post": g.operation(rt, service, version, http.MethodPost, s.idem != nil)}
		if rt.op.Read {
			item["get"] = g.operation(rt, service, version, http.MethodGet, false)
		}
		paths["/"+k] = item
	}
	g.errCodes[commerce.EUnavailable] = true // /readyz
	paths2 := plainPaths(g)
	if s.mediaWidths != nil {
		maps.Copy(paths2, mediaPaths(g, s.mediaWidths))
	}
	for p, item := range paths2 {
		item["servers"] = []any{schema{"url": "/"}}
		paths[p] = item
	}
	var tags []any
	for _, svc := range slices.Sorted(mapsKeys(services)) {
		tags = append(tags, schema{"name": svc, "description": "Operations under /" + svc + "/v1/ (and /services/" + svc + "/v1/)."})
	}
	tags = append(tags, schema{"name": "service", "description": "Health, metrics, the API document, OAuth and webhooks: no bearer token."})
	errs := g.errorComponents()
	for k, v := range errs {
		g.components[k] = v
	}
	return schema{
		"openapi": "3.1.0",
		"info": schema{
			"title":   "commerce",
			"version": "1",
			"description": "A headless commerce backend: JSON over HTTP. Every operation `<resource>.<op>` is " +
				"served at `/<service>/<version>/<resource>.<op>`; the same paths under `/services/` are an " +
				"alias (the second server). Query-string parameters and the JSON body are merged into one " +
				"argument object (the body wins); read operations accept GET (arguments in the query string, " +
				"the required ones marked) and POST, the others POST only. A POST's body is optional: with none, " +
				"the arguments are its query parameters; a body, when sent, is described as holding every " +
				"required argument (a schema cannot say \"in the body or the query string\"). Answers are `{\"ok\": true, ...}` or `{\"ok\": false, " +
				"\"error\": \"<code>\", \"data\": ...}`. A path that names no operation (another version, " +
				"another service's prefix) is 404 `operation_not_found`; another method is 405 " +
				"`method_not_allowed`. Checks run in this order: route (404), method (405), token (401/403), " +
				"body size (413), arguments (400), then the operation.",
		},
		"servers": []any{
			schema{"url": "/", "description": "The service."},
			schema{"url": "/services", "description": "The same operations under /services (an alias)."},
		},
		"tags":     tags,
		"security": []any{schema{"bearerAuth": []any{}}},
		"paths":    paths,
		"components": schema{
			"schemas": g.components,
			"securitySchemes": schema{"clientBasic": schema{"type": "http", "scheme": "basic",
				"description": "A server-to-server client's id and secret (client.create), for /oauth/token."},
				"bearerAuth": schema{
					"type": "http", "scheme": "bearer", "bearerFormat": "JWT",
					"description": "An HS256 JWT with the scope `api` (storefronts, customers) or `admin`. " +
						"`commerce token --scope admin|api` mints one; customers get one from auth.login, " +
						"server-to-server clients from /oauth/token.",
				}},
		},
	}
}

func mapsKeys(m map[string]bool) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// operation is the operation object of a route for a method; idem: POST
// requests may carry an Idempotency-Key (docs/api.md section 18).
func (g *schemaGen) operation(rt *route, service, version, method string, idem bool) schema {
	op := rt.op
	id := service + "." + version + "." + op.Name
	if method == http.MethodGet {
		id += ".get"
	}
	desc := op.Doc
	if desc != "" && !strings.HasSuffix(desc, ".") {
		desc += "."
	}
	scope := []any{}
	if op.Admin {
		desc += " Needs a token with the admin scope."
		scope = []any{commerce.ScopeAdmin}
	} else {
		desc += " Any valid token (api or admin scope)."
	}
	if len(op.Versions) > 1 {
		desc += " Served under " + strings.Join(op.Versions, " and ") + " alike."
	}
	out := schema{
		"operationId": id,
		"summary":     op.Name,
		"description": strings.TrimSpace(desc),
		"tags":        []any{service},
		"security":    []any{schema{"bearerAuth": scope}},
		"responses":   g.responses(rt, idem),
	}
	arg := derefType(rt.arg)
	// Query-string parameters and the body are merged (the body wins,
	// docs/api.md section 2). A GET's arguments are its query parameters,
	// the required ones marked so. A POST's are its JSON body, whose schema
	// marks them, or, with no body at all, its query parameters (the body
	// is optional, so that such a POST validates). A POST that sends a body
	// and gives a required argument only in the query string is accepted
	// by the service but not described: a schema cannot say "in the body
	// or the query string".
	params := g.queryParams(arg, method == http.MethodGet)
	if idem {
		params = append(params, idempotencyParam)
	}
	if len(params) > 0 {
		out["parameters"] = params
	}
	if req := requiredArgs(arg); len(req) > 0 {
		out["description"] = out["description"].(string) + " Required arguments: " + strings.Join(req, ", ") + "."
	}
	if method == http.MethodGet {
		return out
	}
	if op.Multipart {
		form := schema{"type": "object", "required": []string{"file"}, "properties": schema{
			"file": schema{"type": "string", "format": "binary", "description": "The file."}}}
		for _, f := range jsonFields(arg) {
			form["properties"].(schema)[f.name] = describe(schema{"type": "string"}, argDoc(f))
		}
		out["requestBody"] = schema{"required": true, "description": "multipart/form-data: the file part `file` and the arguments as fields.",
			"content": schema{"multipart/form-data": schema{"schema": form}}}
		return out
	}
	out["requestBody"] = schema{"description": postBodyDoc, "content": schema{"application/json": schema{"schema": g.of(arg, modeIn)}}}
	return out
}

// postBodyDoc describes the body of a POST operation.
const postBodyDoc = "The arguments. They may instead be given as query parameters with no body; " +
	"a body, when sent, holds the required ones (query parameters beside it are merged, the body wins)."

// requiredArgs are the required top-level arguments of type t, and the
// arguments of which one is required, in words.
func requiredArgs(t reflect.Type) []string {
	if t.Kind() != reflect.Struct {
		return nil
	}
	var out []string
	for _, f := range jsonFields(t) {
		if ruleOf(f).required {
			out = append(out, "`"+f.name+"`")
		}
	}
	if names := requiredOneOf[t]; len(names) > 0 {
		out = append(out, "one of `"+strings.Join(names, "`, `")+"`")
	}
	return out
}

// queryParams are the arguments of a GET (and of a POST without a body):
// every top-level field, lists comma-separated, objects as JSON; with
// get, the required ones are marked required.
func (g *schemaGen) queryParams(t reflect.Type, get bool) []any {
	if t.Kind() != reflect.Struct {
		return nil
	}
	var out []any
	for _, f := range jsonFields(t) {
		ft := f.sf.Type
		for ft.Kind() == reflect.Pointer {
			ft = ft.Elem()
		}
		r := ruleOf(f)
		p := schema{"name": f.name, "in": "query"}
		if get && r.required {
			p["required"] = true
		}
		if d := argDoc(f); d != "" {
			p["description"] = d
		}
		switch {
		case ft == stringListType:
			items := schema{"type": "string"}
			if r.enum != nil {
				items["enum"] = r.enum
			}
			p["schema"] = schema{"type": "array", "items": items}
			p["style"], p["explode"] = "form", false
		case isScalar(ft):
			p["schema"] = r.apply(g.of(ft, modeIn))
		case (ft.Kind() == reflect.Slice || ft.Kind() == reflect.Array) && isScalar(ft.Elem()):
			p["schema"] = r.apply(g.of(ft, modeIn))
			p["style"], p["explode"] = "form", false
		default:
			p["content"] = schema{"application/json": schema{"schema": g.of(ft, modeIn)}}
		}
		out = append(out, p)
	}
	return out
}

// isScalar reports whether values of t are JSON strings, numbers or
// booleans by their Go kind (and not a type with its own JSON form).
func isScalar(t reflect.Type) bool {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if _, ok := overrides[t]; ok {
		return t == reflect.TypeFor[money.Number]() || t == reflect.TypeFor[money.Decimal]()
	}
	if reflect.PointerTo(t).Implements(unmarshalerTyp) {
		return false
	}
	switch t.Kind() {
	case reflect.String, reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Float32, reflect.Float64:
		return true
	}
	return false
}

// idempotencyParam is the Idempotency-Key header of POST operations.
var idempotencyParam = schema{
	"name": IdempotencyHeader, "in": "header", "required": false,
	"description": "Makes a retry safe: the first request with a key runs and its answer is stored for 24 hours " +
		"(per token subject); the same key with the same operation and arguments gets the stored answer " +
		"(with Idempotent-Replayed: true), with others 422 idempotency_key_reused, while the first still runs " +
		"409 idempotency_key_in_use. 5xx answers are not stored.",
	"schema": schema{"type": "string", "minLength": 1, "maxLength": 255, "pattern": "^[\\x20-\\x7E]+$"},
}

// replayedHeader is the header of a replayed answer.
var replayedHeader = schema{ReplayedHeader: schema{
	"description": "true when the answer is the stored one of an earlier request with the same Idempotency-Key.",
	"schema":      schema{"type": "string", "enum": []any{"true"}},
}}

// responses are the 200 answer (ok and the result's properties) and one
// answer per error status, listing its codes, each with its data: the
// transport's codes, the operation's (Op.Errors) and, with idem, those of
// Idempotency-Key. A code not listed is a fault of the document, which
// the API tests catch (testkit/apitest).
func (g *schemaGen) responses(rt *route, idem bool) schema {
	okSchema := schema{"type": "object", "required": []string{"ok"}, "properties": schema{"ok": schema{"const": true}}}
	result := okSchema
	switch r := rt.op.Result.(type) {
	case nil:
		okSchema["description"] = "The operation's properties beside ok (not described in detail)."
	case partialResult:
		result = schema{"allOf": []any{okSchema, g.of(derefType(reflect.TypeOf(r.v)), modePartial)}}
	default:
		result = schema{"allOf": []any{okSchema, g.of(derefType(reflect.TypeOf(r)), modeOut)}}
	}
	ok := schema{
		"description": "ok",
		"content":     schema{"application/json": schema{"schema": result}},
	}
	if len(rt.op.Produces) > 0 {
		content := schema{}
		for _, ct := range rt.op.Produces {
			content[ct] = schema{"schema": schema{"type": "string"}}
			if strings.Contains(ct, "json") {
				// JSON Lines: many JSON values, which no schema describes
				// (a schema would have the body decoded as one).
				content[ct] = schema{}
			}
		}
		ok = schema{"description": "The records, streamed.", "content": content}
	}
	if idem {
		ok["headers"] = replayedHeader
	}
	out := schema{"200": ok}
	codes := append(append([]string{}, transportErrors...), rt.op.Errors...)
	if idem {
		codes = append(codes, commerce.EIdempotencyKeyInUse, commerce.EIdempotencyKeyReused)
	}
	byStatus := map[int][]string{}
	seen := map[string]bool{}
	for _, code := range codes {
		if seen[code] {
			continue
		}
		seen[code] = true
		st := Status(code)
		byStatus[st] = append(byStatus[st], code)
	}
	for st, codes := range byStatus {
		sort.Strings(codes)
		var refs []any
		var lines []string
		for _, c := range codes {
			refs = append(refs, ref(errorComponent(c)))
			line := "`" + c + "`"
			if d := errorDoc[c]; d != "" {
				line += ": " + d
			}
			lines = append(lines, line)
		}
		sch := schema{"anyOf": refs}
		if len(refs) == 1 {
			sch = refs[0].(schema)
		}
		g.errorCodes(codes)
		res := schema{
			"description": http.StatusText(st) + ". Error codes: " + strings.Join(lines, "; ") + ".",
			"content":     schema{"application/json": schema{"schema": sch}},
		}
		if idem && st < 500 {
			res["headers"] = replayedHeader
		}
		out[strconv.Itoa(st)] = res
	}
	return out
}

func derefType(t reflect.Type) reflect.Type {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t
}

func errorComponent(code string) string { return "error." + code }

// errorCodes notes the codes whose components the document needs.
func (g *schemaGen) errorCodes(codes []string) {
	for _, c := range codes {
		g.errCodes[c] = true
	}
}

// errorComponents are the schemas of the error answers the operations
// list: {ok: false, error: <code>, data}.
func (g *schemaGen) errorComponents() map[string]schema {
	out := map[string]schema{}
	for code := range g.errCodes {
		data, has := g.errorData(code)
		if !has {
			data = schema{"description": "The code's data, when it has one (docs/api.md section 2)."}
		}
		props := schema{
			"ok":    schema{"const": false},
			"error": schema{"const": code},
			"data":  data,
		}
		s := schema{"type": "object", "required": []string{"ok", "error"}, "properties": props,
			"description": fmt.Sprintf("The error %s (HTTP %d).", code, Status(code))}
		out[errorComponent(code)] = s
	}
	return out
}

// Streams lists the operations whose success answer is not the JSON
// envelope (HandleRaw with Produces: an export), by path.
func (s *Server) Streams() map[string]bool {
	out := map[string]bool{}
	for k, rt := range s.routes {
		if len(rt.op.Produces) > 0 {
			out["/"+k] = true
		}
	}
	return out
}

// Operations lists the registered operations as their paths
// ("/cart/v1/cart.create"), sorted, with whether each is a read.
func (s *Server) Operations() map[string]bool {
	out := make(map[string]bool, len(s.routes))
	for k, rt := range s.routes {
		out["/"+k] = rt.op.Read
	}
	return out
}

// Arguments returns the argument object of a request to an operation's
// path (with or without /services) as the transport builds it: the JSON
// body with the query parameters that name arguments merged in (the body
// wins), "{}" for none; ok is false for a path that names no operation or
// a body that is not a JSON object. The document describes a POST's
// arguments as its body: this is the body a request whose arguments are
// split between the query string and the body (or a GET with a body)
// amounts to, for checking such a request against the document.
func (s *Server) Arguments(path string, query url.Values, body []byte) (args []byte, ok bool) {
	rt, _ := s.route(path)
	body = bytes.TrimSpace(body)
	if rt == nil || (len(body) > 0 && body[0] != '{') {
		return nil, false
	}
	merged, _, err := mergeArgs(rt.fields, query, body)
	if err != nil {
		return nil, false
	}
	if len(merged) == 0 {
		merged = []byte("{}")
	}
	return merged, true
}
