package retryhttp

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
)

// Client posts to one endpoint of an OpenAI-compatible server (the speech
// engine, the chat model) with its API key and the retries of its Policy.
// It is safe for concurrent use.
type Client struct {
	Endpoint string
	APIKey   string // sent as a Bearer token when set; never logged
	// KeyHeader, when set, carries the key as it is instead of
	// "Authorization: Bearer …": Azure OpenAI's "api-key".
	KeyHeader string
	HTTP      *http.Client
	Policy    Policy
}

// NewClient builds a Client; hc nil means a client with no overall timeout
// (each attempt has the Policy's).
func NewClient(endpoint, apiKey string, hc *http.Client, p Policy) *Client {
	if hc == nil {
		hc = &http.Client{}
	}
	return &Client{Endpoint: endpoint, APIKey: apiKey, HTTP: hc, Policy: p}
}

// NewRequest is one POST of body to the endpoint, asking for JSON.
func (c *Client) NewRequest(ctx context.Context, contentType string, body io.Reader) (*http.Request, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.Endpoint, body)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", contentType)
	req.Header.Set("Accept", "application/json")
	switch {
	case c.APIKey == "":
	case c.KeyHeader != "":
		req.Header.Set(c.KeyHeader, c.APIKey)
	default:
		req.Header.Set("Authorization", "Bearer "+c.APIKey)
	}
	return req, nil
}

// Do sends the requests newRequest makes (one per attempt) as the package's
// Do does.
func (c *Client) Do(ctx context.Context, newRequest func(context.Context) (*http.Request, error)) (*Response, error) {
	return Do(ctx, c.HTTP, c.Policy, newRequest)
}

// PostJSON posts a JSON body, retried as Do.
func (c *Client) PostJSON(ctx context.Context, body []byte) (*Response, error) {
	return c.Do(ctx, func(ctx context.Context) (*http.Request, error) {
		req, err := c.NewRequest(ctx, "application/json", bytes.NewReader(body))
		if err != nil {
			return nil, fmt.Errorf("%s: %w", c.Policy.Service, err)
		}
		return req, nil
	})
}
