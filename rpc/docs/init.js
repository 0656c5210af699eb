// Renders /openapi.json with Swagger UI (swagger-ui-dist 5.35.0, vendored:
// see rpc/docs.go). Nothing is fetched from elsewhere.
window.ui = SwaggerUIBundle({
  url: "/openapi.json",
  dom_id: "#api",
  deepLinking: true,
  validatorUrl: null,
  tryItOutEnabled: false,
  persistAuthorization: false,
});
