//go:build !proofs

package runway

// longProofs: built without -tags proofs (see proofs_test.go).
const longProofs = false
