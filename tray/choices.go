package tray

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/agentrunway/runway/internal/atomicfile"
	"github.com/agentrunway/runway/internal/statedir"
)

// choicesName is the file in runway's state folder that keeps the menu's
// choices, so a restart starts where the user left off.
const choicesName = "tray-choices.json"

// Choices are the menu's choices as last clicked, each with when it was
// made. The config file is never rewritten: an edit of it after a choice
// wins over that choice.
type Choices struct {
	path, config string
	saved        savedChoices
}

type savedChoices struct {
	Notifications   *bool     `json:"notifications,omitempty"`
	NotificationsAt time.Time `json:"notifications_at,omitzero"`
	SessionList     string    `json:"session_list,omitempty"`
	SessionListAt   time.Time `json:"session_list_at,omitzero"`
}

// LoadChoices reads the choices saved in stateDir; config is the config
// file's path. An unreadable file is an error and no choices: the config's
// settings hold.
func LoadChoices(stateDir, config string) (*Choices, error) {
	c := &Choices{path: filepath.Join(stateDir, choicesName), config: config}
	b, err := statedir.ReadFile(c.path, 64<<10)
	if errors.Is(err, fs.ErrNotExist) {
		return c, nil
	}
	if err == nil {
		err = json.Unmarshal(b, &c.saved)
	}
	if err != nil {
		c.saved = savedChoices{}
		return c, fmt.Errorf("menu choices %s: %v (the config's settings hold; the next click rewrites it)", c.path, err)
	}
	return c, nil
}

// Over returns notifications and sessionList with each saved choice put
// over them, unless the config file was modified after that choice.
func (c *Choices) Over(notifications bool, sessionList string) (bool, string) {
	var edited time.Time
	if fi, err := os.Stat(c.config); err == nil {
		edited = fi.ModTime()
	}
	if s := c.saved; s.Notifications != nil && s.NotificationsAt.After(edited) {
		notifications = *s.Notifications
	}
	if s := c.saved; s.SessionList != "" && s.SessionListAt.After(edited) {
		sessionList = s.SessionList
	}
	return notifications, sessionList
}

// pick saves a choice made at now: notifications when not nil, the
// session list when not "". Nil Choices save nothing.
func (c *Choices) pick(notifications *bool, sessionList string, now time.Time) error {
	if c == nil {
		return nil
	}
	if notifications != nil {
		c.saved.Notifications, c.saved.NotificationsAt = notifications, now
	}
	if sessionList != "" {
		c.saved.SessionList, c.saved.SessionListAt = sessionList, now
	}
	_, err := statedir.Ensure(filepath.Dir(c.path))
	if err == nil {
		err = atomicfile.WriteJSON(c.path, c.saved)
	}
	if err != nil {
		return fmt.Errorf("save menu choice: %w", err)
	}
	return nil
}
