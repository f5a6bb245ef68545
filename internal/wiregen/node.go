package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
)

// node is a JSON value that keeps its members' order: a property's place
// in the document is its field's place in the struct, and so in the body.
type node struct {
	kind kind
	keys []string         // objKind, in document order
	obj  map[string]*node // objKind
	arr  []*node          // arrKind
	s    string           // strKind
	b    bool             // boolKind
}

type kind int

const (
	nullKind kind = iota
	boolKind
	numKind
	strKind
	arrKind
	objKind
)

func parse(b []byte) (*node, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	n, err := read(dec)
	if err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("data after the document")
	}
	return n, nil
}

func read(dec *json.Decoder) (*node, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch v := tok.(type) {
	case json.Delim:
		n := &node{kind: arrKind}
		if v == '{' {
			n.kind, n.obj = objKind, map[string]*node{}
		}
		for dec.More() {
			if n.kind == objKind {
				k, err := dec.Token()
				if err != nil {
					return nil, err
				}
				n.keys = append(n.keys, k.(string))
				if n.obj[k.(string)], err = read(dec); err != nil {
					return nil, err
				}
				continue
			}
			e, err := read(dec)
			if err != nil {
				return nil, err
			}
			n.arr = append(n.arr, e)
		}
		_, err := dec.Token() // the closing delimiter
		return n, err
	case string:
		return &node{kind: strKind, s: v}, nil
	case bool:
		return &node{kind: boolKind, b: v}, nil
	case json.Number:
		return &node{kind: numKind, s: v.String()}, nil
	default:
		return &node{kind: nullKind}, nil
	}
}

// get is the member k of an object, nil if none (or n is not an object).
func (n *node) get(k string) *node {
	if n == nil || n.kind != objKind {
		return nil
	}
	return n.obj[k]
}

// at follows a path of member names.
func (n *node) at(path ...string) *node {
	for _, k := range path {
		n = n.get(k)
	}
	return n
}

// str is the string member k, "" if none.
func (n *node) str(k string) string {
	if v := n.get(k); v != nil && v.kind == strKind {
		return v.s
	}
	return ""
}
