package cni

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"
)

// linkIndex returns the interface index of the link called name, and false
// if there is no such link.
func linkIndex(name string) (int, bool, error) {
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return 0, false, fmt.Errorf("socket: %w", err)
	}
	defer unix.Close(fd)
	ifr, err := unix.NewIfreq(name)
	if err != nil {
		return 0, false, fmt.Errorf("link %q: %w", name, err)
	}
	if err := unix.IoctlIfreq(fd, unix.SIOCGIFINDEX, ifr); err != nil {
		if errors.Is(err, unix.ENODEV) {
			return 0, false, nil
		}
		return 0, false, fmt.Errorf("link %q: index: %w", name, err)
	}
	return int(ifr.Uint32()), true, nil
}

// deleteLink deletes the link called name (for a veth, both ends). A link
// that does not exist is not an error.
func deleteLink(name string) error {
	index, ok, err := linkIndex(name)
	if err != nil || !ok {
		return err
	}
	if err := rtnlDelLink(index); err != nil && !errors.Is(err, unix.ENODEV) {
		return fmt.Errorf("delete link %q: %w", name, err)
	}
	return nil
}

// bridgePorts lists the links enslaved to the bridge called name; none if
// the bridge does not exist.
func bridgePorts(name string) ([]string, error) {
	entries, err := os.ReadDir(filepath.Join("/sys/class/net", name, "brif"))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("list ports of bridge %q: %w", name, err)
	}
	ports := make([]string, len(entries))
	for i, e := range entries {
		ports[i] = e.Name()
	}
	return ports, nil
}

// rtnlDelLink sends RTM_DELLINK for the given interface index over rtnetlink
// and waits for the kernel's acknowledgement.
func rtnlDelLink(index int) error {
	fd, err := unix.Socket(unix.AF_NETLINK, unix.SOCK_RAW|unix.SOCK_CLOEXEC, unix.NETLINK_ROUTE)
	if err != nil {
		return fmt.Errorf("netlink socket: %w", err)
	}
	defer unix.Close(fd)
	kernel := &unix.SockaddrNetlink{Family: unix.AF_NETLINK}

	var req bytes.Buffer
	_ = binary.Write(&req, binary.NativeEndian, unix.NlMsghdr{
		Len:   unix.SizeofNlMsghdr + unix.SizeofIfInfomsg,
		Type:  unix.RTM_DELLINK,
		Flags: unix.NLM_F_REQUEST | unix.NLM_F_ACK,
		Seq:   1,
	})
	_ = binary.Write(&req, binary.NativeEndian, unix.IfInfomsg{
		Family: unix.AF_UNSPEC,
		Index:  int32(index),
	})
	if err := unix.Sendto(fd, req.Bytes(), 0, kernel); err != nil {
		return fmt.Errorf("netlink send: %w", err)
	}

	buf := make([]byte, 4096)
	n, _, err := unix.Recvfrom(fd, buf, 0)
	if err != nil {
		return fmt.Errorf("netlink receive: %w", err)
	}
	return nlAck(buf[:n])
}

// nlAck interprets the kernel's reply to a netlink request sent with
// NLM_F_ACK: nil for a positive acknowledgement, the errno otherwise.
func nlAck(reply []byte) error {
	var hdr unix.NlMsghdr
	if err := binary.Read(bytes.NewReader(reply), binary.NativeEndian, &hdr); err != nil {
		return fmt.Errorf("netlink reply: %w", err)
	}
	if hdr.Type != unix.NLMSG_ERROR || len(reply) < unix.SizeofNlMsghdr+4 {
		return fmt.Errorf("netlink reply: unexpected message type %d", hdr.Type)
	}
	code := int32(binary.NativeEndian.Uint32(reply[unix.SizeofNlMsghdr:]))
	if code == 0 {
		return nil
	}
	return unix.Errno(-code)
}
