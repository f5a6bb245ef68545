// Package deploy holds hyscribe's production deployment: compose.yaml (the
// whole stack on one machine) and k8s/ (Kubernetes manifests), both running
// the image built by ../Dockerfile. Its test checks the files against the
// operating contract (the environment names cmd/hyscribe/cli reads, the
// commands and stages it knows), since no Docker engine or cluster runs in CI.
package deploy
