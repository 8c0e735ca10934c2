package server

import (
	"errors"
	"fmt"
	"testing"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/chatbus/chatbus/client"
	"github.com/chatbus/chatbus/internal/enumtab"
	chatbusv1 "github.com/chatbus/chatbus/proto/chatbus/v1"
	"github.com/chatbus/chatbus/server/doctor"
	"github.com/chatbus/chatbus/server/hub"
	"github.com/chatbus/chatbus/server/providers"
	"github.com/chatbus/chatbus/server/store"
)

// reasonOf reads the chatbus ErrorInfo reason of a status error.
func reasonOf(t *testing.T, err error) string {
	t.Helper()
	reason := ""
	for _, d := range status.Convert(err).Details() {
		if info, ok := d.(*errdetails.ErrorInfo); ok && info.GetDomain() == ErrorDomain {
			if reason != "" {
				t.Errorf("%v: two ErrorInfo reasons", err)
			}
			reason = info.GetReason()
		}
	}
	return reason
}

// TestErrorTable: every sentinel of the table goes out, wrapped as the
// handlers wrap it, with its own row's code and reason (no earlier row
// shadows it); a reason has one code wherever it appears; every value of
// chatbus.v1.ErrorReason is produced by some sentinel.
func TestErrorTable(t *testing.T) {
	codeOf := map[chatbusv1.ErrorReason]codes.Code{}
	produced := map[chatbusv1.ErrorReason]bool{}
	seen := map[error]bool{}
	for _, row := range errorCodes {
		t.Run(row.err.Error(), func(t *testing.T) {
			if seen[row.err] {
				t.Fatalf("%v is in the table twice", row.err)
			}
			seen[row.err] = true
			if row.reason == chatbusv1.ErrorReason_ERROR_REASON_UNSPECIFIED {
				t.Fatalf("%v has no reason", row.err)
			}
			if c, ok := codeOf[row.reason]; ok && c != row.code {
				t.Errorf("reason %v goes out with %v and %v", row.reason, c, row.code)
			}
			codeOf[row.reason] = row.code
			produced[row.reason] = true

			err := toStatus(fmt.Errorf("doing something: %w", row.err))
			if got := status.Code(err); got != row.code {
				t.Errorf("code %v, want %v", got, row.code)
			}
			if got, want := reasonOf(t, err), reasonString(row.reason); got != want {
				t.Errorf("reason %q, want %q", got, want)
			}
		})
	}
	for _, r := range enumtab.Values[chatbusv1.ErrorReason](chatbusv1.ErrorReason(0).Descriptor()) {
		if !produced[r] {
			t.Errorf("%v is produced by no sentinel", r)
		}
	}
}

// TestReasonStrings: the reason strings keep the spelling the clients
// matched before the enum existed.
func TestReasonStrings(t *testing.T) {
	for r, want := range map[chatbusv1.ErrorReason]string{
		chatbusv1.ErrorReason_ERROR_REASON_SESSION_UNKNOWN: "SESSION_UNKNOWN",
		chatbusv1.ErrorReason_ERROR_REASON_RATE_LIMITED:    "RATE_LIMITED",
		chatbusv1.ErrorReason_ERROR_REASON_TAKEN_OVER:      "TAKEN_OVER",
		chatbusv1.ErrorReason_ERROR_REASON_OUTCOME_UNKNOWN: "OUTCOME_UNKNOWN",
	} {
		if got := reasonString(r); got != want {
			t.Errorf("%v goes out as %q, want %q", r, got, want)
		}
	}
}

// TestOwnerRefusalKeepsItsCode: a provider's answer to a fence request
// keeps its code on the way to the caller, with reason OWNER_REFUSED; an
// error without one is FAILED_PRECONDITION.
func TestOwnerRefusalKeepsItsCode(t *testing.T) {
	tests := []struct {
		name string
		err  error
		want codes.Code
	}{
		{"another doctor's fence", &doctor.RefusedError{Code: codes.Aborted, Msg: "fence held by r1"}, codes.Aborted},
		{"not prepared", fmt.Errorf("cancel: %w", &doctor.RefusedError{Code: codes.FailedPrecondition, Msg: "not prepared"}), codes.FailedPrecondition},
		{"owner gone", &doctor.RefusedError{Code: codes.Unavailable, Msg: "connection refused"}, codes.Unavailable},
		{"no code", fmt.Errorf("%w: by hand", doctor.ErrRefused), codes.FailedPrecondition},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := toStatus(tt.err)
			if got := status.Code(err); got != tt.want {
				t.Errorf("code %v, want %v", got, tt.want)
			}
			if got := reasonOf(t, err); got != "OWNER_REFUSED" {
				t.Errorf("reason %q, want OWNER_REFUSED", got)
			}
		})
	}
}

// TestUnknownProviderOneCode: "no such provider" is NOT_FOUND whichever
// part of the supervisor found it.
func TestUnknownProviderOneCode(t *testing.T) {
	for _, err := range []error{providers.ErrUnknown, fmt.Errorf("register: %w", hub.ErrUnknownProvider)} {
		if got := status.Code(toStatus(err)); got != codes.NotFound {
			t.Errorf("%v: %v, want NotFound", err, got)
		}
	}
}

// TestFencedIsRetryable: a write a deposed cluster leader was refused goes
// out as UNAVAILABLE with reason FENCED and its message kept, and the Go
// client treats it as the unavailability it retries.
func TestFencedIsRetryable(t *testing.T) {
	in := fmt.Errorf("etcdstore: leadership /k@7 gone: %w", store.ErrFenced)
	err := toStatus(in)
	if st := status.Convert(err); st.Code() != codes.Unavailable || st.Message() != in.Error() {
		t.Errorf("status %v %q", st.Code(), st.Message())
	}
	if got := reasonOf(t, err); got != "FENCED" {
		t.Errorf("reason %q, want FENCED", got)
	}
	if !errors.Is(client.Err(err), client.ErrUnavailable) {
		t.Errorf("the client maps it to %v, want ErrUnavailable", client.Err(err))
	}
}
