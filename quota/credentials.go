package quota

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/tidwall/gjson"

	"github.com/agentrunway/runway/internal/jsonsafe"
)

// keychainService is the macOS Keychain item Claude Code keeps its login in.
const keychainService = "Claude Code-credentials"

// errNoCredentials: no login found in any config folder nor the Keychain.
var errNoCredentials = errors.New("quota: no Claude Code login found")

// credentials is a Claude Code login; the token never leaves it (others name it by id).
type credentials struct {
	token     string
	expiresAt time.Time // zero when not given
	id        string    // fingerprint of token
	where     string    // the file, or "Keychain item <service>"
	dir       string    // the config folder the login is of ("" when unknown)
	stamp     fileStamp // of the file, to notice Claude Code rewriting it
}

type fileStamp struct {
	size int64
	mod  time.Time
}

func stampOf(fi os.FileInfo) fileStamp { return fileStamp{fi.Size(), fi.ModTime()} }

// parseCredentials' errors never quote the content.
func parseCredentials(b []byte, where string) (credentials, error) {
	if !jsonsafe.Valid(b) {
		return credentials{}, fmt.Errorf("quota: %s is not valid JSON", where)
	}
	o := gjson.GetBytes(b, "claudeAiOauth")
	tok := o.Get("accessToken")
	if tok.Type != gjson.String || tok.Str == "" {
		return credentials{}, fmt.Errorf("quota: %s has no claudeAiOauth.accessToken", where)
	}
	c := credentials{token: tok.Str, id: fingerprint(tok.Str), where: where}
	if e := o.Get("expiresAt"); e.Type == gjson.Number {
		c.expiresAt = jsonsafe.Epoch(e.Float())
	}
	return c, nil
}

// keychainServiceFor: Claude Code suffixes the item's name for a config folder other than ~/.claude.
func keychainServiceFor(dir, home string) string {
	if dir == "" || (home != "" && filepath.Clean(dir) == filepath.Join(home, ".claude")) {
		return keychainService
	}
	h := sha256.Sum256([]byte(dir))
	return keychainService + "-" + hex.EncodeToString(h[:])[:8]
}

// readCredentials finds the login: the first config folder's
// .credentials.json, else the Keychain, read again only when forced, changed
// or (rarely, as it may prompt) expired.
func (c *ClaudeSources) readCredentials(ctx context.Context, now time.Time, force bool) (credentials, error) {
	for _, dir := range c.ConfigDirs {
		path := filepath.Join(dir, ".credentials.json")
		fi, err := os.Stat(path)
		if err != nil {
			continue
		}
		if !force && c.creds != nil && c.creds.where == path && c.creds.stamp == stampOf(fi) {
			return *c.creds, nil
		}
		b, err := readRegular(path, 1<<20)
		if err != nil {
			return credentials{}, fmt.Errorf("quota: read %s: %w", path, err)
		}
		cr, err := parseCredentials(b, path)
		if err != nil {
			return credentials{}, err
		}
		cr.stamp, cr.dir = stampOf(fi), dir
		c.creds = &cr
		return cr, nil
	}
	keychain := c.Keychain
	if keychain == nil {
		keychain = readKeychain
	}
	dirs := c.ConfigDirs
	if len(dirs) == 0 {
		dirs = []string{""}
	}
	for _, dir := range dirs {
		service := keychainServiceFor(dir, c.Home)
		where := "Keychain item " + service
		if !force && c.creds != nil && c.creds.where == where {
			expired := !c.creds.expiresAt.IsZero() && !now.Before(c.creds.expiresAt)
			if !expired || now.Sub(c.keychainAt) < keychainReread {
				return *c.creds, nil
			}
		}
		c.keychainAt = now
		kctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		b, err := keychain(kctx, service)
		cancel()
		if err != nil {
			if errors.Is(err, errNoKeychain) || errors.Is(err, errNoKeychainItem) {
				continue
			}
			return credentials{}, err
		}
		cr, err := parseCredentials(b, where)
		if err != nil {
			return credentials{}, err
		}
		cr.dir = dir
		c.creds = &cr
		return cr, nil
	}
	c.creds = nil
	return credentials{}, errNoCredentials
}

var (
	errNoKeychain     = errors.New("quota: no keychain on this system")
	errNoKeychainItem = errors.New("quota: keychain item not found")
)

// Subscribed says whether configDir's .credentials.json holds a Claude plan
// login: Claude Code keeps claudeAiOauth there only for a claude.ai login and
// names its plan in subscriptionType (a Console login keeps an API key, and
// also writes an oauthAccount, so that is no proof). No token is taken, and
// the Keychain (macOS) is never read: there the answer is false.
func Subscribed(configDir string) bool {
	b, err := readRegular(filepath.Join(configDir, ".credentials.json"), 1<<20)
	if err != nil || !jsonsafe.Valid(b) {
		return false
	}
	plan := gjson.GetBytes(b, "claudeAiOauth.subscriptionType")
	return plan.Type == gjson.String && plan.Str != ""
}
