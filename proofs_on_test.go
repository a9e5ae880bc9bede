//go:build proofs

package runway

// longProofs: built with -tags proofs.
const longProofs = true
