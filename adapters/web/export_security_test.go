package web

// Inert is inert, for the tests of the web package.
var Inert = inert
