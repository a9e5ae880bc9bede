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

// face serves the item's properties in place of systray's, which has one
// IconPixmap and no XAyatanaLabel (the text panels show beside the icon).
// Exporting them on systray's connection replaces its handler; the menu
// stays systray's. Without them (the export failed) only the menu shows.
type face struct {
	conn  *dbus.Conn
	props *prop.Properties
}

func newFace(logf func(string, ...any)) face {
	f, err := exportItem()
	if err != nil {
		logf("%v; the tray shows its menu only", err)
	}
	return f
}

// exportItem replaces systray's properties on its connection. It must run
// after systray's start has exported the item.
func exportItem() (face, error) {
	conn, err := dbus.SessionBus() // the connection systray exported on
	if err != nil {
		return face{}, fmt.Errorf("tray: the item's connection: %w", err)
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
		return face{}, fmt.Errorf("tray: exporting the item's properties: %w", err)
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
		return face{}, fmt.Errorf("tray: exporting the item's introspection: %w", err)
	}
	return face{conn: conn, props: props}, nil
}

// set changes a property (which emits PropertiesChanged) and then sends
// the item's own signal, which hosts that ignore PropertiesChanged follow.
func (f face) set(name string, v any, signal string, args ...any) {
	if f.props == nil {
		return
	}
	f.props.SetMust(itemIface, name, v)
	f.conn.Emit(itemPath, itemIface+"."+signal, args...)
}

func (f face) setIcon(k iconKey) { f.set("IconPixmap", pixmaps(k), "NewIcon") }

func (f face) setTitle(s string) { f.set("Title", s, "NewTitle") }

func (f face) setTooltip(s string) {
	f.set("ToolTip", itemTooltip{Pixmap: []pixmap{}, Title: s}, "NewToolTip")
}

// setLabel shows label beside the icon; the guide is as wide as it gets.
func (f face) setLabel(label string) {
	f.set("XAyatanaLabel", label, "XAyatanaNewLabel", label, labelGuide)
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
