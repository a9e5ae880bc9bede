package main

func (c *cli) statusline(args []string) error { return nil }
func (c *cli) doctor(args []string) error     { return nil }
func (c *cli) tray(args []string) error       { return nil }
func (c *cli) autostart(args []string) error  { return nil }
