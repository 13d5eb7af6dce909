package cni

import (
	"encoding/json"
	"testing"
)

func TestCollectOptionsRejects(t *testing.T) {
	for name, tc := range map[string]struct {
		id   string
		opts []AttachOption
	}{
		"empty id":       {"", nil},
		"bad id":         {"a/b", nil},
		"zero host port": {"p", []AttachOption{WithPortMappings(PortMapping{ContainerPort: 80})}},
		"bad protocol":   {"p", []AttachOption{WithPortMappings(PortMapping{HostPort: 1, ContainerPort: 80, Protocol: "icmp"})}},
		"bad host ip":    {"p", []AttachOption{WithPortMappings(PortMapping{HostPort: 1, ContainerPort: 80, HostIP: "x"})}},
		"bad arg":        {"p", []AttachOption{WithArgs("A;B", "c")}},
	} {
		if _, err := collectOptions(tc.id, tc.opts); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

func TestCapabilityArgs(t *testing.T) {
	o, err := collectOptions("p", []AttachOption{
		WithPortMappings(PortMapping{HostPort: 8080, ContainerPort: 80}),
		WithPortMappings(PortMapping{HostPort: 53, ContainerPort: 53, Protocol: "UDP", HostIP: "127.0.0.1"}),
		WithArgs("K8S_POD_NAME", "web"),
	})
	if err != nil {
		t.Fatal(err)
	}
	got, err := json.Marshal(o.capabilityArgs())
	if err != nil {
		t.Fatal(err)
	}
	want := `{"portMappings":[{"hostPort":8080,"containerPort":80,"protocol":"tcp"},{"hostPort":53,"containerPort":53,"protocol":"udp","hostIP":"127.0.0.1"}]}`
	if string(got) != want {
		t.Errorf("capability args %s, want %s", got, want)
	}
	if len(o.args) != 1 || o.args[0] != [2]string{"K8S_POD_NAME", "web"} {
		t.Errorf("args %v", o.args)
	}
	if (attachOptions{}).capabilityArgs() != nil {
		t.Error("capability args without port mappings")
	}
}
