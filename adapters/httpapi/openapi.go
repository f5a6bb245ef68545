package httpapi

// OpenAPI returns the OpenAPI document served at /api/openapi.json, for
// the web application's API page.
func OpenAPI() []byte { return openAPIDocument }
