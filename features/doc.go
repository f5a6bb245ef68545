// Package features holds hyscribe's behaviour written for customers: Gherkin
// scenarios (*.feature) of the public API, the upload address and the events
// sent to receivers, run by godog against the real service started in-process
// (see features_test.go). The steps speak HTTP only; the one stand-in is the
// fake speech engine of adapters/asr/asrtest, served over real HTTP.
package features
