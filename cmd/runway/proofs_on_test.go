//go:build proofs

package main

// longProofs: built with -tags proofs.
const longProofs = true
