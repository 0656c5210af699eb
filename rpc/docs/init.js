// Renders /openapi.json with Swagger UI (swagger-ui-dist 5.35.0, vendored:
// see rpc/docs.go). Nothing is fetched from elsewhere. The tags start
// collapsed (docExpansion "none"): with every one of the ~150 operations
// listed at once, Swagger UI stopped rendering after the first few.
window.ui = SwaggerUIBundle({
  docExpansion: "none",
  url: "/openapi.json",
  dom_id: "#api",
  deepLinking: true,
  validatorUrl: null,
  tryItOutEnabled: false,
  persistAuthorization: false,
});
