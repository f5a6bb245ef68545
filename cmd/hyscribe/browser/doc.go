// Package browser holds the end-to-end tests of the web application: the
// real service (cli.Start) driven through Debian's Chromium, headless, by
// chromedp over the DevTools protocol. There is no non-test code here.
package browser
