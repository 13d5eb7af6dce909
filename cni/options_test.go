package cni

import (
	"encoding/json"
	"net"
	"net/netip"
	"testing"

	types100 "github.com/containernetworking/cni/pkg/types/100"
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

func TestNewResultPicksPodInterfaceAndIPv4(t *testing.T) {
	raw := &types100.Result{
		CNIVersion: "1.0.0",
		Interfaces: []*types100.Interface{
			{Name: "br0", Mac: "aa:aa:aa:aa:aa:aa"},
			{Name: "veth1", Mac: "bb:bb:bb:bb:bb:bb"},
			{Name: "eth0", Mac: "cc:cc:cc:cc:cc:cc", Sandbox: "/run/ns"},
		},
		IPs: []*types100.IPConfig{
			{Interface: types100.Int(0), Address: mustIPNet("10.0.0.1/24")},
			{Interface: types100.Int(2), Address: mustIPNet("fd00::5/64"), Gateway: net.ParseIP("fd00::1")},
			{Interface: types100.Int(2), Address: mustIPNet("10.0.0.5/24"), Gateway: net.ParseIP("10.0.0.1")},
		},
	}
	res, err := newResult(raw, "eth0")
	if err != nil {
		t.Fatal(err)
	}
	if res.Interface != "eth0" || res.MAC != "cc:cc:cc:cc:cc:cc" ||
		res.IP != netip.MustParseAddr("10.0.0.5") ||
		res.Prefix != netip.MustParsePrefix("10.0.0.5/24") ||
		res.Gateway != netip.MustParseAddr("10.0.0.1") {
		t.Errorf("result %+v", res)
	}
	if r := res.Raw(); len(r.IPs) != 3 || len(r.Interfaces) != 3 {
		t.Errorf("Raw = %+v", r)
	}
}

func mustIPNet(s string) net.IPNet {
	ip, n, err := net.ParseCIDR(s)
	if err != nil {
		panic(err)
	}
	n.IP = ip
	return *n
}
