package cni

import (
	"net"
	"net/netip"
	"testing"

	types100 "github.com/containernetworking/cni/pkg/types/100"
)

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
