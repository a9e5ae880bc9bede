//go:build proofs

package longproof

func init() { asked = true }
