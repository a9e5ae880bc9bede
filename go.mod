module github.com/agentrunway/runway

go 1.26
