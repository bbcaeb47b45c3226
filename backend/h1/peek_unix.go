//go:build linux || darwin || dragonfly || freebsd || netbsd || openbsd

package h1

import "syscall"

// peek looks at the socket without blocking and without taking a byte
// (syscall.RawConn's Read calls it once: it always reports done).
func (c *conn) peek(fd uintptr) bool {
	_, _, c.peekErr = syscall.Recvfrom(int(fd), c.peekBuf[:], syscall.MSG_PEEK|syscall.MSG_DONTWAIT)
	return true
}

// peekSaysIdle: the last peek found nothing to read and no end or error,
// what an open connection nobody wrote to looks like.
func (c *conn) peekSaysIdle() bool {
	return c.peekErr == syscall.EAGAIN || c.peekErr == syscall.EWOULDBLOCK
}
