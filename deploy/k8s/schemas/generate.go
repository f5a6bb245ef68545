//go:build ignore

// Generate writes the JSON schemas kubeconform checks deploy/k8s against,
// for the Kubernetes version and the resource kinds listed below, from the
// OpenAPI document that the k8s.io/kubernetes Go module ships
// (api/openapi-spec/swagger.json). Run from the repository root:
//
//	go run deploy/k8s/schemas/generate.go
//
// Each schema is standalone (every $ref inlined) and strict (objects refuse
// fields they do not declare), named as kubeconform's schema-location
// template expects: {kind}-{group}-{version}.json, lower case.
package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// kubernetesVersion is the release whose API the manifests must fit.
const kubernetesVersion = "v1.32.13"

// kinds are the definitions deploy/k8s uses.
var kinds = []string{
	"io.k8s.api.apps.v1.Deployment",
	"io.k8s.api.batch.v1.Job",
	"io.k8s.api.core.v1.ConfigMap",
	"io.k8s.api.core.v1.Secret",
	"io.k8s.api.core.v1.Service",
	"io.k8s.api.autoscaling.v2.HorizontalPodAutoscaler",
	"io.k8s.api.policy.v1.PodDisruptionBudget",
	"io.k8s.api.networking.v1.NetworkPolicy",
	"io.k8s.api.networking.v1.Ingress",
}

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "generate:", err)
		os.Exit(1)
	}
}

func run() error {
	out, err := exec.Command("go", "mod", "download", "-json", "k8s.io/kubernetes@"+kubernetesVersion).Output()
	if err != nil {
		return fmt.Errorf("go mod download k8s.io/kubernetes@%s: %w", kubernetesVersion, err)
	}
	var mod struct{ Dir string }
	if err := json.Unmarshal(out, &mod); err != nil {
		return err
	}
	b, err := os.ReadFile(filepath.Join(mod.Dir, "api", "openapi-spec", "swagger.json"))
	if err != nil {
		return err
	}
	var doc struct {
		Definitions map[string]map[string]any `json:"definitions"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		return err
	}
	dir := filepath.Join("deploy", "k8s", "schemas")
	for _, name := range kinds {
		def, ok := doc.Definitions[name]
		if !ok {
			return fmt.Errorf("%s is not in Kubernetes %s", name, kubernetesVersion)
		}
		gvk := def["x-kubernetes-group-version-kind"].([]any)[0].(map[string]any)
		group, version, kind := gvk["group"].(string), gvk["version"].(string), gvk["kind"].(string)
		schema := inline(def, doc.Definitions, nil).(map[string]any)
		schema["$schema"] = "http://json-schema.org/schema#"
		apiVersion := version
		file := strings.ToLower(kind) + "-" + version + ".json"
		if group != "" {
			apiVersion = group + "/" + version
			file = strings.ToLower(kind) + "-" + strings.Split(group, ".")[0] + "-" + version + ".json"
		}
		props := schema["properties"].(map[string]any)
		props["apiVersion"] = map[string]any{"type": "string", "enum": []string{apiVersion}}
		props["kind"] = map[string]any{"type": "string", "enum": []string{kind}}
		js, err := json.MarshalIndent(schema, "", "  ")
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dir, file), append(js, '\n'), 0o644); err != nil {
			return err
		}
		fmt.Println("wrote", filepath.Join(dir, file))
	}
	return nil
}

// inline copies v with every $ref replaced by its definition (seen guards
// against recursive types, which these kinds do not have), and every object
// with declared properties made strict.
func inline(v any, defs map[string]map[string]any, seen []string) any {
	switch x := v.(type) {
	case map[string]any:
		if ref, ok := x["$ref"].(string); ok {
			name := strings.TrimPrefix(ref, "#/definitions/")
			switch name {
			case "io.k8s.apimachinery.pkg.util.intstr.IntOrString":
				return map[string]any{"oneOf": []any{map[string]any{"type": "string"}, map[string]any{"type": "integer"}}}
			case "io.k8s.apimachinery.pkg.api.resource.Quantity":
				return map[string]any{"oneOf": []any{map[string]any{"type": "string"}, map[string]any{"type": "number"}}}
			}
			for _, s := range seen {
				if s == name {
					return map[string]any{} // a recursive type: anything
				}
			}
			return inline(defs[name], defs, append(seen, name))
		}
		out := map[string]any{}
		for k, val := range x {
			if strings.HasPrefix(k, "x-kubernetes-") {
				continue
			}
			out[k] = inline(val, defs, seen)
		}
		if _, ok := out["properties"]; ok {
			if _, set := out["additionalProperties"]; !set {
				out["additionalProperties"] = false
			}
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = inline(e, defs, seen)
		}
		return out
	}
	return v
}
