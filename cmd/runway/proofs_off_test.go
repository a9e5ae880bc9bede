//go:build !proofs

package main

// longProofs: built without -tags proofs (see longProof).
const longProofs = false
