// Package httpapi is hyscribe's inbound HTTP adapter (fiber on fasthttp): the
// public API of spec/transcription-api.md (createTranscription,
// getTranscription), the upload host for signed PUT addresses, and the
// operational endpoints /healthz, /metrics and /api/openapi.json.
//
// It translates HTTP to the app layer's use cases and back, and nothing
// more: authentication, rate limits, validation and ownership are decided in
// app and domain. What belongs here is the wire: one table mapping domain
// errors to statuses, JSON error bodies {"error","code"} on every path,
// 405/404 answers for everything not served, streaming of upload bodies, and
// keeping keep-alive connections sane when a handler leaves a body unread.
//
// The package is named httpapi, not http, so it does not shadow net/http.
package httpapi
