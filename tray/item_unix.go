//go:build linux || freebsd || openbsd || netbsd

package tray

import (
	"fmt"
	"image"

	"github.com/godbus/dbus/v5"
	"github.com/godbus/dbus/v5/introspect"
	"github.com/godbus/dbus/v5/prop"
)

// The StatusNotifierItem's object and interface, as systray exports them.
const (
	itemPath  = dbus.ObjectPath("/StatusNotifierItem")
	itemIface = "org.kde.StatusNotifierItem"
	menuPath  = dbus.ObjectPath("/StatusNotifierItem/menu")
)

// pixmap is one image of IconPixmap, (iiay): ARGB32 in network byte order.
type pixmap struct {
	W, H int32
	Pix  []byte
}

// itemTooltip is the ToolTip property, (sa(iiay)ss): icon name, icons,
// title, text.
type itemTooltip struct {
	Icon   string
	Pixmap []pixmap
	Title  string
	Text   string
}

// sniItem serves the item's properties itself, in place of systray's.
// systray exports IconPixmap with one image and has no XAyatanaLabel, the
// text GNOME's AppIndicator extension and other panels show beside the
// icon. Its properties are a godbus prop.Properties exported on systray's
// connection (the shared session bus) at the item's path, which can hold
// one Properties handler: exporting ours replaces systray's, and systray's
// setters are then never called (they would update an object no one reads).
// The menu stays systray's.
type sniItem struct {
	conn  *dbus.Conn
	props *prop.Properties
}

// exportItem replaces systray's properties on its connection. It must run
// after systray's start has exported the item.
func exportItem(appName string) (*sniItem, error) {
	conn, err := dbus.SessionBus() // the connection systray exported on
	if err != nil {
		return nil, fmt.Errorf("tray: the item's connection: %w", err)
	}
	k := startingView().Icon
	spec := prop.Map{itemIface: {
		"Status":        {Value: "Active", Emit: prop.EmitTrue},
		"Category":      {Value: "ApplicationStatus", Emit: prop.EmitTrue},
		"Id":            {Value: appName, Emit: prop.EmitTrue}, // stable, so a panel remembers where it put the item
		"Title":         {Value: appName, Emit: prop.EmitTrue},
		"IconName":      {Value: "", Emit: prop.EmitTrue},
		"IconThemePath": {Value: "", Emit: prop.EmitTrue},
		"IconPixmap":    {Value: pixmaps(k), Emit: prop.EmitTrue},
		"ItemIsMenu":    {Value: true, Emit: prop.EmitTrue},
		"Menu":          {Value: menuPath, Emit: prop.EmitTrue},
		"ToolTip":       {Value: itemTooltip{Pixmap: []pixmap{}}, Emit: prop.EmitTrue},
		// The label beside the icon, and the widest it will be, so a panel
		// can keep its place steady as the figure changes.
		"XAyatanaLabel":      {Value: "", Emit: prop.EmitTrue},
		"XAyatanaLabelGuide": {Value: labelGuide, Emit: prop.EmitTrue},
	}}
	props, err := prop.Export(conn, itemPath, spec)
	if err != nil {
		return nil, fmt.Errorf("tray: exporting the item's properties: %w", err)
	}
	node := introspect.Node{
		Name: string(itemPath),
		Interfaces: []introspect.Interface{
			introspect.IntrospectData,
			prop.IntrospectData,
			{
				Name:       itemIface,
				Properties: props.Introspection(itemIface),
				Signals: []introspect.Signal{
					{Name: "NewTitle"}, {Name: "NewIcon"}, {Name: "NewToolTip"},
					{Name: "NewStatus", Args: []introspect.Arg{{Name: "status", Type: "s"}}},
					{Name: "XAyatanaNewLabel", Args: []introspect.Arg{{Name: "label", Type: "s"}, {Name: "guide", Type: "s"}}},
				},
			},
		},
	}
	if err := conn.Export(introspect.NewIntrospectable(&node), itemPath, "org.freedesktop.DBus.Introspectable"); err != nil {
		return nil, fmt.Errorf("tray: exporting the item's introspection: %w", err)
	}
	return &sniItem{conn: conn, props: props}, nil
}

// set changes a property (which emits PropertiesChanged) and then sends
// the item's own signal, which hosts that ignore PropertiesChanged follow.
func (it *sniItem) set(name string, v any, signal string, args ...any) {
	it.props.SetMust(itemIface, name, v)
	it.conn.Emit(itemPath, itemIface+"."+signal, args...)
}

func (it *sniItem) setIcon(k iconKey) { it.set("IconPixmap", pixmaps(k), "NewIcon") }

func (it *sniItem) setTitle(s string) { it.set("Title", s, "NewTitle") }

func (it *sniItem) setTooltip(s string) {
	it.set("ToolTip", itemTooltip{Pixmap: []pixmap{}, Title: s}, "NewToolTip")
}

// setLabel shows label beside the icon; guide is as wide as it can get.
func (it *sniItem) setLabel(label, guide string) {
	it.props.SetMust(itemIface, "XAyatanaLabelGuide", guide)
	it.set("XAyatanaLabel", label, "XAyatanaNewLabel", label, guide)
}

// pixmaps are the icon at every size, for the host to pick the one it
// draws without scaling.
func pixmaps(k iconKey) []pixmap {
	var out []pixmap
	for _, size := range iconSizes {
		out = append(out, argb(k.draw(size)))
	}
	return out
}

// argb converts an image to IconPixmap's ARGB32, network byte order.
func argb(img *image.NRGBA) pixmap {
	b := img.Bounds()
	px := pixmap{W: int32(b.Dx()), H: int32(b.Dy()), Pix: make([]byte, 0, 4*b.Dx()*b.Dy())}
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			c := img.NRGBAAt(x, y)
			px.Pix = append(px.Pix, c.A, c.R, c.G, c.B)
		}
	}
	return px
}

// face is what the tray shows outside its menu; on Linux the item runway
// serves itself. Without it (the export failed, said once) nothing is shown
// beyond the menu.
type face struct{ item *sniItem }

func newFace(appName string, logf func(string, ...any)) face {
	it, err := exportItem(appName)
	if err != nil {
		logf("%v; the tray shows its menu only", err)
	}
	return face{item: it}
}

func (f face) setIcon(k iconKey) {
	if f.item != nil {
		f.item.setIcon(k)
	}
}

func (f face) setTitle(s string) {
	if f.item != nil {
		f.item.setTitle(s)
	}
}

func (f face) setTooltip(s string) {
	if f.item != nil {
		f.item.setTooltip(s)
	}
}

func (f face) setLabel(label string) {
	if f.item != nil {
		f.item.setLabel(label, labelGuide)
	}
}
