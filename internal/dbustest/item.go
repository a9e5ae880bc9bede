package dbustest

import (
	"fmt"
	"strings"
	"testing"

	"github.com/godbus/dbus/v5"
)

// Pixmap is one image of a StatusNotifierItem: W×H ARGB32, network order.
type Pixmap struct {
	W, H int32
	Pix  []byte
}

// Item is what a panel reads from a StatusNotifierItem.
type Item struct {
	ID      string
	Title   string
	Tooltip string // the tooltip's title, where hosts show the text
	// XAyatanaLabel and XAyatanaLabelGuide, shown beside the icon.
	Label, LabelGuide string
	Menu              MenuNode
}

// MenuNode is one dbusmenu entry and its children.
type MenuNode struct {
	ID        int32
	Label     string
	Visible   bool
	Separator bool
	Toggle    int // toggle-state, -1 when not a checkbox
	Children  []MenuNode
}

const itemIface = "org.kde.StatusNotifierItem."

// ReadIcons reads the item's icon, a pixmap per size. The tray sets the
// icon before the tooltip: read it once the tooltip shows the new state.
func ReadIcons(conn *dbus.Conn, name string) ([]Pixmap, error) {
	var icons []Pixmap
	if err := conn.Object(name, "/StatusNotifierItem").StoreProperty(itemIface+"IconPixmap", &icons); err != nil {
		return nil, err
	}
	for _, p := range icons {
		if int(p.W)*int(p.H)*4 != len(p.Pix) {
			return nil, fmt.Errorf("a %dx%d pixmap of %d bytes", p.W, p.H, len(p.Pix))
		}
	}
	return icons, nil
}

// ReadItem reads the item's title, tooltip and whole menu over DBus.
func ReadItem(conn *dbus.Conn, name string) (Item, error) {
	var it Item
	obj := conn.Object(name, "/StatusNotifierItem")
	for prop, v := range map[string]*string{"Id": &it.ID, "Title": &it.Title, "XAyatanaLabel": &it.Label, "XAyatanaLabelGuide": &it.LabelGuide} {
		if err := obj.StoreProperty(itemIface+prop, v); err != nil {
			return it, fmt.Errorf("%s: %w", prop, err)
		}
	}
	var tip struct {
		Icon   string
		Pixmap []Pixmap
		Title  string
		Text   string
	}
	if err := obj.StoreProperty(itemIface+"ToolTip", &tip); err != nil {
		return it, err
	}
	it.Tooltip = tip.Title
	var menuPath dbus.ObjectPath
	if err := obj.StoreProperty(itemIface+"Menu", &menuPath); err != nil {
		return it, err
	}
	var rev uint32
	var root rawLayout
	err := conn.Object(name, menuPath).Call("com.canonical.dbusmenu.GetLayout", 0, int32(0), int32(-1), []string{}).Store(&rev, &root)
	if err != nil {
		return it, err
	}
	it.Menu, err = root.node()
	return it, err
}

// rawLayout is dbusmenu's (ia{sv}av).
type rawLayout struct {
	ID       int32
	Props    map[string]dbus.Variant
	Children []dbus.Variant
}

func (r rawLayout) node() (MenuNode, error) {
	n := MenuNode{ID: r.ID, Visible: true, Toggle: -1}
	if v, ok := r.Props["label"]; ok {
		n.Label, _ = v.Value().(string)
	}
	if v, ok := r.Props["visible"]; ok {
		n.Visible, _ = v.Value().(bool)
	}
	if v, ok := r.Props["type"]; ok {
		n.Separator = v.Value() == "separator"
	}
	if v, ok := r.Props["toggle-type"]; ok && v.Value() == "checkmark" {
		var state int32
		if err := dbus.Store([]any{r.Props["toggle-state"].Value()}, &state); err != nil {
			return n, err
		}
		n.Toggle = int(state)
	}
	for _, c := range r.Children {
		var raw rawLayout
		if err := dbus.Store([]any{c.Value()}, &raw); err != nil {
			return n, err
		}
		child, err := raw.node()
		if err != nil {
			return n, err
		}
		n.Children = append(n.Children, child)
	}
	return n, nil
}

// Shown is what a person sees of a menu: its visible rows, separators as ---.
func (n MenuNode) Shown() []string {
	var out []string
	for _, c := range n.Children {
		switch {
		case !c.Visible:
		case c.Separator:
			out = append(out, "---")
		default:
			out = append(out, c.Label)
		}
	}
	return out
}

// Find returns the visible entry with this label, at any depth.
func (n MenuNode) Find(label string) (MenuNode, bool) {
	for _, c := range n.Children {
		if c.Visible && c.Label == label {
			return c, true
		}
		if f, ok := c.Find(label); ok {
			return f, true
		}
	}
	return MenuNode{}, false
}

// ClickLabel waits for a visible entry with this label and clicks it as a
// panel does, expecting no reply: after Quit the tray may be gone.
func ClickLabel(t testing.TB, conn *dbus.Conn, name, label string) {
	t.Helper()
	var n MenuNode
	Eventually(t, "a menu entry "+label, func() (bool, string) {
		it, err := ReadItem(conn, name)
		if err != nil {
			return false, err.Error()
		}
		var ok bool
		n, ok = it.Menu.Find(label)
		return ok, strings.Join(it.Menu.Shown(), " | ")
	})
	err := conn.Object(name, "/StatusNotifierItem/menu").
		Call("com.canonical.dbusmenu.Event", dbus.FlagNoReplyExpected, n.ID, "clicked", dbus.MakeVariant(int32(0)), uint32(0)).Err
	if err != nil {
		t.Fatal(err)
	}
}
