package main

import "github.com/agentrunway/runway"

func (c *cli) doctor(args []string) error                         { return nil }
func (c *cli) autostart(args []string) error                      { return nil }
func (c *cli) doctorText(env runway.Env, e *runway.Engine) string { return "" }
