package providers

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rs/zerolog"
	"go.uber.org/goleak"
	"google.golang.org/grpc/codes"

	"github.com/chatbus/chatbus/internal/etcdtest"
	providerv1 "github.com/chatbus/chatbus/proto/chatbus/provider/v1"
	sdk "github.com/chatbus/chatbus/provider"
	sdkchild "github.com/chatbus/chatbus/provider/child"
	"github.com/chatbus/chatbus/provider/providertest"
)

// The Manager's tests run real provider children: this test binary,
// re-executed with childEnv set, serving sdkchild.Serve with a
// providertest.Fake that its settings script (childSettings).
const childEnv = "CHATBUS_PROVIDERS_TEST_CHILD"

func TestMain(m *testing.M) {
	if os.Getenv(childEnv) != "" {
		os.Exit(child())
	}
	os.Setenv(childEnv, "1") // for the children this process starts
	goleak.VerifyTestMain(m, etcdtest.LeakOptions()...)
}

// childSettings script a child: Push updates 1..Push of thread "7" in chat
// "-100" at start; serve Files for Download; Platform names it in
// Describe. Calls are scripted by their params (callParams).
type childSettings struct {
	Push     int               `json:"push"`
	Files    map[string]string `json:"files"`
	Platform string            `json:"platform"`
	// Refused are updates (of 1..Push) given a dedup id longer than the
	// journal keeps one: the store refuses their record.
	Refused []int64 `json:"refused"`
	// Large are updates (of 1..Push) of 1 MiB of text and as much raw
	// payload: more than one etcd request may carry (1.5 MiB).
	Large []int64 `json:"large"`
	// Generation is the provider contract generation the child says it
	// speaks (0: this build's).
	Generation uint32 `json:"generation"`
}

// callParams script one call: Fail names the provider error it answers
// with ("not_found", "invalid", "denied", "unavailable", "ambiguous",
// "out_of_scope", "target_gone"; "rate_limited" the first time its key is
// made, a rate limit of 200ms; "rate_limited_long" likewise of 30s;
// "precondition" a platform's own FAILED_PRECONDITION); Exit makes the child die in the middle of
// it. Otherwise the call answers {"n": how many calls this child answered
// so far, "pid": its pid}.
type callParams struct {
	Fail string `json:"fail"`
	Exit bool   `json:"exit"`
}

var childFailures = map[string]error{
	"not_found":    sdk.ErrNotFound,
	"invalid":      sdk.ErrInvalid,
	"denied":       sdk.ErrPermissionDenied,
	"unavailable":  sdk.ErrUnavailable,
	"ambiguous":    sdk.ErrAmbiguous,
	"out_of_scope": sdk.ErrOutOfScope,
	"target_gone":  sdk.ErrTargetGone,
}

func child() int {
	raw, err := io.ReadAll(os.Stdin)
	if err != nil {
		return 2
	}
	secret, platform, err := sdkchild.SplitSettings(raw)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	var cs childSettings
	if err := json.Unmarshal(platform, &cs); err != nil {
		fmt.Fprintln(os.Stderr, "settings:", err)
		return 2
	}
	var answered atomic.Int64
	var mu sync.Mutex
	attempts := map[string]int{} // by idempotency key
	f := &providertest.Fake{Files: map[string][]byte{}}
	for id, content := range cs.Files {
		f.Files[id] = []byte(content)
	}
	if cs.Platform != "" {
		d := providertest.DefaultDescription
		d.Platform = cs.Platform
		f.Description = d
	}
	f.CallFunc = func(_ context.Context, _ sdk.Target, _ string, params json.RawMessage, key string) (sdk.Result, error) {
		var p callParams
		_ = json.Unmarshal(params, &p)
		mu.Lock()
		attempts[key]++
		first := attempts[key] == 1
		mu.Unlock()
		if p.Exit {
			os.Exit(3)
		}
		if p.Fail == "rate_limited" && first {
			return sdk.Result{}, sdk.RateLimited(200*time.Millisecond, nil)
		}
		if p.Fail == "rate_limited_long" && first {
			return sdk.Result{}, sdk.RateLimited(30*time.Second, nil)
		}
		if p.Fail == "rate_limited_long" {
			p.Fail = ""
		}
		if p.Fail == "rate_limited" {
			p.Fail = ""
		}
		if p.Fail == "precondition" {
			return sdk.Result{}, &sdk.Error{Code: codes.FailedPrecondition, Message: "the message is not modified"}
		}
		if p.Fail != "" {
			err, ok := childFailures[p.Fail]
			if !ok {
				return sdk.Result{}, fmt.Errorf("unknown failure %q", p.Fail)
			}
			return sdk.Result{}, fmt.Errorf("scripted: %w", err)
		}
		n := answered.Add(1)
		res, err := json.Marshal(map[string]any{"n": n, "pid": os.Getpid(), "message_id": 100 + n})
		return sdk.Result{JSON: res, Refs: []sdk.Ref{{Kind: sdk.RefMessage, ID: fmt.Sprint(100 + n)}}}, err
	}
	var uploads atomic.Int64
	f.UploadFunc = func(_ context.Context, h sdk.UploadHeader, r io.Reader) (sdk.Result, error) {
		b, err := io.ReadAll(r)
		if err != nil {
			return sdk.Result{}, err
		}
		res, err := json.Marshal(map[string]any{"filename": h.Filename, "size": len(b), "n": uploads.Add(1)})
		return sdk.Result{JSON: res}, err
	}
	for i := 1; i <= cs.Push; i++ {
		u := &providerv1.Update{UpdateId: int64(i), Chat: "-100", Thread: "7", Allowed: true,
			Kind: providerv1.UpdateKind_UPDATE_KIND_MESSAGE, Text: fmt.Sprint("update ", i)}
		if slices.Contains(cs.Large, int64(i)) {
			u.Text = strings.Repeat("y", 1<<20)
			u.Payload = []byte(fmt.Sprintf(`{"update_id":%d,"text":%q}`, i, u.Text))
		}
		if slices.Contains(cs.Refused, int64(i)) {
			u.DedupId = strings.Repeat("x", 2000)
			u.Payload = []byte(fmt.Sprintf(`{"update_id":%d}`, i))
		}
		f.Push(u)
	}
	err = sdkchild.Serve(context.Background(), sdkchild.Config{
		Name: os.Getenv(sdkchild.EnvName), Socket: os.Getenv(sdkchild.EnvSocket), Secret: secret,
		Platform: f, Health: sdk.NewHealth(), Logger: zerolog.New(os.Stderr), Generation: cs.Generation,
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}
