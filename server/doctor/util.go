package doctor

import (
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// transportReason: an answer from the owner refusing is not_acknowledged;
// failing to reach it at all is write_failed.
func transportReason(err error) Reason {
	switch status.Code(err) {
	case codes.Unavailable, codes.DeadlineExceeded, codes.Canceled, codes.Unknown:
		return WriteFailed
	}
	return NotAcknowledged
}
