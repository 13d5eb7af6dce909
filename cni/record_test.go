//go:build linux

package cni

import (
	"context"
	"encoding/json"
	"testing"
)

// A Network made from a Bridge's Record by another process (here: after a JSON round trip, as
// in a pod's record) releases everything the Bridge's Setup took.
func TestFromRecordRemovesWhatBridgeSetUp(t *testing.T) {
	b := newTestBridge(t, true)
	p := attach(t, b, WithPortMappings(PortMapping{HostPort: randomHostPort(t), ContainerPort: 80}))
	veth := hostVeth(t, p.res)

	raw, err := json.Marshal(b.Record())
	if err != nil {
		t.Fatal(err)
	}
	var rec Record
	if err := json.Unmarshal(raw, &rec); err != nil {
		t.Fatal(err)
	}
	if !rec.Equal(b.Record()) {
		t.Errorf("record after a JSON round trip differs: %s", raw)
	}
	nw, err := FromRecord(rec)
	if err != nil {
		t.Fatalf("FromRecord: %v", err)
	}
	if got, ok := nw.(Recorder); !ok || !got.Record().Equal(rec) {
		t.Errorf("FromRecord's network does not record itself as %s", raw)
	}
	// No options: the port mappings come from the CNI cache of the recorded state dir.
	if err := nw.Remove(context.Background(), p.id, p.netns); err != nil {
		t.Fatalf("Remove: %v", err)
	}
	assertDetached(t, b, p, veth)
}

func TestRecordEqual(t *testing.T) {
	base := Record{StateDir: "/s", ConfList: json.RawMessage(`{"name": "n", "plugins": []}`), PluginDirs: []string{"/a"}}
	for name, tc := range map[string]struct {
		other Record
		want  bool
	}{
		"white space":  {Record{StateDir: "/s", ConfList: json.RawMessage(`{"name":"n","plugins":[]}`), PluginDirs: []string{"/a"}}, true},
		"state dir":    {Record{StateDir: "/t", ConfList: base.ConfList, PluginDirs: base.PluginDirs}, false},
		"plugin dirs":  {Record{StateDir: "/s", ConfList: base.ConfList, PluginDirs: []string{"/b"}}, false},
		"conflist":     {Record{StateDir: "/s", ConfList: json.RawMessage(`{"name":"m","plugins":[]}`), PluginDirs: base.PluginDirs}, false},
		"invalid json": {Record{StateDir: "/s", ConfList: json.RawMessage(`{`), PluginDirs: base.PluginDirs}, false},
	} {
		if got := base.Equal(tc.other); got != tc.want {
			t.Errorf("%s: Equal = %v, want %v", name, got, tc.want)
		}
	}
}
