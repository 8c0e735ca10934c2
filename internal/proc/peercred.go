package proc

import (
	"fmt"
	"net"
	"syscall"
)

// Cred is who is at the other end of a Unix socket connection, as the
// kernel recorded it when the peer connected (peercred_<os>.go says how
// each OS is asked).
type Cred struct {
	// PID is the peer's process id at connect time.
	PID int32
	// UID is the peer's effective user id.
	UID uint32
}

// PeerCred returns the credentials of the process at the other end of a Unix
// socket connection.
func PeerCred(conn net.Conn) (*Cred, error) {
	sc, ok := conn.(syscall.Conn)
	if !ok {
		return nil, fmt.Errorf("peer credentials: %T is not a socket", conn)
	}
	raw, err := sc.SyscallConn()
	if err != nil {
		return nil, err
	}
	var cred Cred
	var credErr error
	if err := raw.Control(func(fd uintptr) { cred, credErr = peerCred(int(fd)) }); err != nil {
		return nil, err
	}
	if credErr != nil {
		return nil, credErr
	}
	return &cred, nil
}
