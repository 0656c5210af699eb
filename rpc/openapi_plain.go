package rpc

import "github.com/commercekit/commerce"

// plainPaths are the endpoints outside the operations, which need no
// bearer token: health, readiness, metrics, this document and its page,
// the OAuth token endpoint (docs/api.md section 15) and the Stripe
// webhook (section 14).
func plainPaths(g *schemaGen) map[string]schema {
	noAuth := []any{}
	okTrue := schema{"type": "object", "required": []string{"ok"}, "properties": schema{"ok": schema{"const": true}}}
	jsonOf := func(s schema) schema { return schema{"application/json": schema{"schema": s}} }
	get := func(id, summary, desc string, responses schema) schema {
		return schema{"get": schema{"operationId": id, "summary": summary, "description": desc,
			"tags": []any{"service"}, "security": noAuth, "responses": responses}}
	}
	oauthError := schema{"type": "object", "required": []string{"error"}, "properties": schema{
		"error":             schema{"type": "string", "enum": []any{"invalid_request", "invalid_client", "unsupported_grant_type", "invalid_scope", "server_error"}},
		"error_description": schema{"type": "string"},
	}}
	stripeError := func(desc, code string) schema {
		g.errorCodes([]string{code})
		return schema{"description": desc, "content": jsonOf(ref(errorComponent(code)))}
	}
	noStore := schema{"Cache-Control": schema{"description": "no-store (RFC 6749 section 5.1).",
		"schema": schema{"type": "string", "enum": []any{"no-store"}}}}
	return map[string]schema{
		"/healthz": get("healthz", "Liveness", "Answers while the process runs.",
			schema{"200": schema{"description": "alive", "content": jsonOf(okTrue)}}),
		"/readyz": get("readyz", "Readiness", "Answers ok when the storage is reachable.", schema{
			"200": schema{"description": "ready", "content": jsonOf(okTrue)},
			"503": schema{"description": "Error codes: `unavailable`: the storage is unreachable.",
				"content": jsonOf(ref(errorComponent("unavailable")))},
		}),
		"/metrics": get("metrics", "Prometheus metrics",
			"commerce_requests_total and commerce_request_duration_seconds by service, version, operation and "+
				"status, commerce_events_dropped_total, and the Go runtime and process collectors.",
			schema{"200": schema{"description": "The Prometheus text exposition format.",
				"content": schema{"text/plain": schema{"schema": schema{"type": "string"}}}}}),
		"/openapi.json": get("openapi", "This document", "The OpenAPI 3.1 document, generated from the registered operations.",
			schema{"200": schema{"description": "The document.", "content": jsonOf(schema{"type": "object"})}}),
		"/openapi-3.0.json": get("openapi30", "This document in OpenAPI 3.0.3",
			"The same document rendered as OpenAPI 3.0.3 (nullable instead of type lists, one-value enums instead of const), "+
				"for generators that read 3.0 only, such as oapi-codegen.",
			schema{"200": schema{"description": "The document.", "content": jsonOf(schema{"type": "object"})}}),
		"/docs": get("docs", "The API reference page", "This document rendered as a page; its assets are served by the binary.",
			schema{"200": schema{"description": "An HTML page.", "content": schema{"text/html": schema{"schema": schema{"type": "string"}}}}}),
		"/oauth/token": {"post": schema{
			"operationId": "oauthToken", "summary": "OAuth 2.0 client credentials",
			"description": "RFC 6749 section 4.4: a server-to-server client (client.create) exchanges its id and " +
				"secret, as HTTP Basic credentials or as the form fields client_id and client_secret, for an " +
				"access token with the client's scope. Every answer carries Cache-Control: no-store; another method is 405.",
			"tags": []any{"service"}, "security": []any{schema{}, schema{"clientBasic": []any{}}},
			"requestBody": schema{"required": true, "content": schema{"application/x-www-form-urlencoded": schema{"schema": schema{
				"type": "object", "required": []string{"grant_type"}, "properties": schema{
					"grant_type": schema{"type": "string", "enum": []any{"client_credentials"},
						"description": "client_credentials, the one grant type served."},
					"client_id": schema{"type": "string",
						"description": "The client's id (client.create), unless given as HTTP Basic credentials."},
					"client_secret": schema{"type": "string",
						"description": "The client's secret, unless given as HTTP Basic credentials."},
					"scope": schema{"type": "string",
						"description": "The scope asked for: the client's own (api or admin); absent, the client's."},
				}}}}},
			"responses": schema{
				"200": schema{"description": "The access token.", "headers": noStore, "content": jsonOf(schema{
					"type": "object", "required": []string{"access_token", "token_type", "expires_in"}, "properties": schema{
						"access_token": schema{"type": "string"},
						"token_type":   schema{"type": "string", "const": "Bearer"},
						"expires_in":   schema{"type": "integer", "description": "Seconds."},
					}})},
				"400": schema{"description": "RFC 6749 section 5.2: `invalid_request` (a missing or repeated parameter, a body that is not a form), " +
					"`unsupported_grant_type`, `invalid_scope` (a scope other than the client's).", "content": jsonOf(oauthError), "headers": noStore},
				"401": schema{"description": "RFC 6749 section 5.2: `invalid_client` (with WWW-Authenticate: Basic).", "content": jsonOf(oauthError), "headers": noStore},
				"413": schema{"description": "`invalid_request`: the body is over 1 MiB.", "content": jsonOf(oauthError), "headers": noStore},
				"500": schema{"description": "`server_error`: a fault of the service (details go to the log).", "content": jsonOf(oauthError), "headers": noStore},
			},
		}},
		"/webhooks/stripe": {"post": schema{
			"operationId": "stripeWebhook", "summary": "Stripe events",
			"description": "Served when the service has a Stripe webhook secret (--stripe-webhook-secret; else 404). " +
				"Stripe's event notifications, authenticated by the Stripe-Signature header " +
				"(t=<unix>,v1=<hex HMAC-SHA256 of \"<t>.<body>\"> keyed with --stripe-webhook-secret; 5 minutes " +
				"tolerance). Applies payment_intent.succeeded, payment_intent.canceled, " +
				"payment_intent.payment_failed and charge.refunded to the matching order's payment; an event " +
				"id seen before changes nothing and gets the same answer.",
			"tags": []any{"service"}, "security": noAuth,
			"parameters": []any{schema{"name": "Stripe-Signature", "in": "header", "required": true,
				"description": "t=<unix time>,v1=<hex HMAC-SHA256 of \"<t>.<body>\">, keyed with the webhook's signing secret.",
				"schema":      schema{"type": "string"}}},
			"requestBody": schema{"required": true, "content": jsonOf(schema{"type": "object",
				"description": "A Stripe event (any api_version).",
				"properties": schema{"id": schema{"type": "string", "description": "The event's id (evt_...): an id seen before changes nothing."},
					"type": schema{"type": "string", "description": "The event's type (payment_intent.succeeded, charge.refunded, ...)."}}})},
			"responses": schema{
				"200": schema{"description": "Received (or seen before).", "content": jsonOf(schema{
					"type": "object", "required": []string{"received"}, "properties": schema{"received": schema{"const": true}}})},
				"400": stripeError("`validation_error`: a missing, bad or stale signature, or a body that is not an event.", commerce.EValidation),
				"404": stripeError("`operation_not_found`: the service has no Stripe webhook secret.", commerce.EOperationNotFound),
				"413": stripeError("`request_too_large`: the body is over 1 MiB.", commerce.ERequestTooLarge),
				"500": stripeError("`internal_error`: the event could not be applied (Stripe sends it again).", commerce.EInternal),
				"503": stripeError("`unavailable`: the storage is unreachable, or the service takes no payment events (Stripe sends it again).", commerce.EUnavailable),
			},
		}},
	}
}
