//go:build !unix

package main

import "os/exec"

// stopGroup: elsewhere the context kills the command itself; WaitDelay
// bounds the wait for anything it left behind.
func stopGroup(*exec.Cmd) {}
