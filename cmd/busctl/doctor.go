package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"google.golang.org/protobuf/types/known/durationpb"

	"github.com/chatbus/chatbus/client"
	chatbusv1 "github.com/chatbus/chatbus/proto/chatbus/v1"
)

// Exit codes of doctor restart, by outcome class.
const (
	exitRestarted        = 0
	exitOwnerUnavailable = 10
	exitRefused          = 11 // prepare or commit refused
	exitExitTimeout      = 12
	exitSuccessorRefused = 13
)

// outcomeError carries a restart outcome's exit code.
type outcomeError struct {
	code int
	msg  string
}

func (e *outcomeError) Error() string { return e.msg }

func (a *app) doctorCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "doctor",
		Short: "Restart or upgrade a provider without losing anything (prepare / commit / cancel)",
		Long: `The doctor protocol restarts a provider child without losing a message and
without killing anything: the owner closes admission (prepare), settles,
and exits by itself (commit); the supervisor proves the exit and brings up
the successor. Inbound updates wait at the platform, outbound calls in the
durable outbox.

"doctor restart" runs it all and exits with the outcome's class:
  0 restarted, 10 owner_unavailable, 11 prepare_refused/commit_refused,
  12 old_owner_exit_timeout, 13 successor_refused.`,
	}
	cmd.AddCommand(a.doctorStatusCmd(), a.doctorFenceCmd("prepare"), a.doctorFenceCmd("commit"), a.doctorFenceCmd("cancel"), a.doctorRestartCmd())
	return cmd
}

func (a *app) doctorStatusCmd() *cobra.Command {
	return &cobra.Command{
		Use:               "status [PROVIDER]",
		Short:             "Show each provider owner's identity, fence phase and occupancy",
		Args:              cobra.MaximumNArgs(1),
		ValidArgsFunction: a.completeProviders,
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.show(cmd, func(ctx context.Context, c *client.Client) (*view, error) {
				req := &chatbusv1.StatusRequest{}
				if len(args) == 1 {
					if err := a.requireProvider(ctx, c, args[0]); err != nil {
						return nil, err
					}
					req.Provider = args[0]
				}
				resp, err := chatbusv1.NewDoctorServiceClient(c.Conn()).Status(ctx, req)
				if err != nil {
					return nil, clientErr(err)
				}
				return ownersView(resp), nil
			})
		},
	}
}

func ownersView(resp *chatbusv1.StatusResponse) *view {
	t := newTable(col("PROVIDER"), col("PID"), col("OWNER"), col("PHASE"), col("ADMITTING"), col("OCCUPANCY"), col("LEASE"), col("REQUEST"))
	t.empty = "(no providers configured: see deploy/config.example.yaml)"
	for _, o := range resp.GetOwners() {
		if !o.GetPresent() {
			t.add(txt(o.GetProvider()), txt("-"), txt("-"), paint("absent", styleBad), txt("-"), txt("-"), txt("-"), txt("-"))
			continue
		}
		lease := "-"
		if o.GetLeaseExpiresAt() != nil {
			lease = time.Until(o.GetLeaseExpiresAt().AsTime()).Round(time.Second).String()
		}
		t.add(txt(o.GetProvider()), txt(fmt.Sprint(o.GetPid())), txt(o.GetOwnerId()),
			txt(strings.ToLower(strings.TrimPrefix(o.GetPhase().String(), "FENCE_PHASE_"))), txt(fmt.Sprint(o.GetAdmitting())),
			txt(occupancy(o.GetOccupancy())), txt(lease), txt(orDash(o.GetRequestId())))
	}
	return &view{data: protoData(resp), table: t}
}

func (a *app) doctorFenceCmd(verb string) *cobra.Command {
	var requestID string
	var lease time.Duration
	cmd := &cobra.Command{
		Use:               verb + " PROVIDER",
		Short:             map[string]string{"prepare": "Close a provider's admission under a lease", "commit": "Make a prepared provider exit by itself (refused while occupied)", "cancel": "Reopen a prepared provider's admission"}[verb],
		Args:              cobra.ExactArgs(1),
		ValidArgsFunction: a.completeProviders,
		RunE: func(cmd *cobra.Command, args []string) error {
			if verb != "prepare" && requestID == "" {
				return usagef("--request-id is required: the id prepare printed")
			}
			if requestID == "" {
				b := make([]byte, 6)
				rand.Read(b)
				requestID = "busctl-" + hex.EncodeToString(b)
			}
			c, ctx, done, err := a.connect(cmd)
			if err != nil {
				return err
			}
			defer done()
			if err := a.requireProvider(ctx, c, args[0]); err != nil {
				return err
			}
			dc := chatbusv1.NewDoctorServiceClient(c.Conn())
			var owner *chatbusv1.Owner
			switch verb {
			case "prepare":
				var resp *chatbusv1.PrepareResponse
				resp, err = dc.Prepare(ctx, &chatbusv1.PrepareRequest{Provider: args[0], RequestId: requestID, Lease: durationpb.New(lease)})
				owner = resp.GetOwner()
			case "commit":
				var resp *chatbusv1.CommitResponse
				resp, err = dc.Commit(ctx, &chatbusv1.CommitRequest{Provider: args[0], RequestId: requestID})
				owner = resp.GetOwner()
			case "cancel":
				var resp *chatbusv1.CancelResponse
				resp, err = dc.Cancel(ctx, &chatbusv1.CancelRequest{Provider: args[0], RequestId: requestID})
				owner = resp.GetOwner()
			}
			if err != nil {
				return clientErr(err)
			}
			head := fmt.Sprintf("%s %s: pid %d, phase %s, admitting %v, occupancy %s (request %s)\n", verb, args[0], owner.GetPid(),
				strings.ToLower(strings.TrimPrefix(owner.GetPhase().String(), "FENCE_PHASE_")), owner.GetAdmitting(),
				occupancy(owner.GetOccupancy()), requestID)
			return a.render(&view{head: head, data: jsonData(map[string]any{"request_id": requestID, "provider": args[0], "pid": owner.GetPid(),
				"phase": owner.GetPhase().String(), "admitting": owner.GetAdmitting()})})
		},
	}
	cmd.Flags().StringVar(&requestID, "request-id", "", "the doctor request id (prepare makes one if empty)")
	if verb == "prepare" {
		cmd.Flags().DurationVar(&lease, "lease", 60*time.Second, "admission reopens by itself after this unless committed or cancelled")
	}
	return cmd
}

func (a *app) doctorRestartCmd() *cobra.Command {
	var drain, deadline time.Duration
	cmd := &cobra.Command{
		Use:               "restart PROVIDER",
		Short:             "Restart a provider: prepare, drain, commit, prove the exit, wait for the successor",
		Args:              cobra.ExactArgs(1),
		ValidArgsFunction: a.completeProviders,
		RunE: func(cmd *cobra.Command, args []string) error {
			c, _, err := a.dial()
			if err != nil {
				return err
			}
			defer c.Close()
			ctx, cancel := a.callCtx(cmd)
			err = a.requireProvider(ctx, c, args[0])
			cancel()
			if err != nil {
				return err
			}
			req := &chatbusv1.RestartRequest{Provider: args[0], Deadline: durationpb.New(deadline)}
			if drain > 0 {
				req.Drain = durationpb.New(drain)
			}
			st, err := chatbusv1.NewDoctorServiceClient(c.Conn()).Restart(cmd.Context(), req)
			if err != nil {
				return clientErr(err)
			}
			for {
				resp, err := st.Recv()
				if errors.Is(err, io.EOF) {
					return errors.New("the restart stream ended without an outcome")
				}
				if err != nil {
					return clientErr(err)
				}
				if p := resp.GetProgress(); p != nil {
					a.printProgress(p)
					continue
				}
				return a.printOutcome(resp.GetOutcome())
			}
		},
	}
	cmd.Flags().DurationVar(&drain, "drain", 0, "wait at most this long for the provider to settle before committing (default: commit at once; it exits once settled)")
	cmd.Flags().DurationVar(&deadline, "deadline", 60*time.Second, "bound on the whole restart")
	return cmd
}

// requireProvider refuses, as errNotFound, a provider name the
// supervisor has not configured, saying where providers are configured.
func (a *app) requireProvider(ctx context.Context, c *client.Client, name string) error {
	resp, err := c.Admin.ListProviders(ctx, &chatbusv1.ListProvidersRequest{})
	if err != nil {
		return clientErr(err)
	}
	var names []string
	for _, p := range resp.GetProviders() {
		if p.GetName() == name {
			return nil
		}
		names = append(names, p.GetName())
	}
	where := "the profile's config file"
	if p, err := a.paths(); err == nil {
		where = p.Config
	}
	configured := "none is configured"
	if len(names) > 0 {
		configured = "configured: " + strings.Join(names, ", ")
	}
	return notFoundf("no provider named %s is configured (%s; providers are configured under providers: in %s, see deploy/config.example.yaml)", name, configured, where)
}

func (a *app) printProgress(p *chatbusv1.RestartProgress) {
	line := fmt.Sprintf("%7s  %-10s %s", p.GetElapsed().AsDuration().Round(time.Millisecond),
		strings.ToLower(strings.TrimPrefix(p.GetPhase().String(), "RESTART_PHASE_")), p.GetMessage())
	if p.GetOccupancy() != nil {
		line += "  occupancy " + occupancy(p.GetOccupancy())
	}
	for _, b := range p.GetBlockers() {
		line += "\n           blocked by: " + b
	}
	a.record(p, line)
}

func (a *app) printOutcome(o *chatbusv1.RestartOutcome) error {
	kind := strings.ToLower(strings.TrimPrefix(o.GetKind().String(), "OUTCOME_KIND_"))
	reason := strings.ToLower(strings.TrimPrefix(o.GetReason().String(), "OUTCOME_REASON_"))
	out := "outcome: " + kind
	if reason != "unspecified" {
		out += "{" + reason + "}"
	}
	out += ": " + o.GetMessage()
	if o.GetKind() == chatbusv1.OutcomeKind_OUTCOME_KIND_RESTARTED {
		out += fmt.Sprintf("\nold pid %d → successor pid %d (exit proof: %s, adopted: %v); prepare → ready %s, total %s",
			o.GetOld().GetPid(), o.GetSuccessor().GetPid(), o.GetExitProof(), o.GetAdopted(),
			o.GetPrepareToReady().AsDuration().Round(time.Millisecond), o.GetElapsed().AsDuration().Round(time.Millisecond))
	}
	a.record(o, out)
	code := map[chatbusv1.OutcomeKind]int{
		chatbusv1.OutcomeKind_OUTCOME_KIND_RESTARTED:              exitRestarted,
		chatbusv1.OutcomeKind_OUTCOME_KIND_OWNER_UNAVAILABLE:      exitOwnerUnavailable,
		chatbusv1.OutcomeKind_OUTCOME_KIND_PREPARE_REFUSED:        exitRefused,
		chatbusv1.OutcomeKind_OUTCOME_KIND_COMMIT_REFUSED:         exitRefused,
		chatbusv1.OutcomeKind_OUTCOME_KIND_OLD_OWNER_EXIT_TIMEOUT: exitExitTimeout,
		chatbusv1.OutcomeKind_OUTCOME_KIND_SUCCESSOR_REFUSED:      exitSuccessorRefused,
	}[o.GetKind()]
	if code == exitRestarted {
		return nil
	}
	return &outcomeError{code: code, msg: "restart " + kind}
}

func occupancy(o *chatbusv1.Occupancy) string {
	return fmt.Sprintf("attached=%d inflight=%d inbound=%d outbound=%d cleanup=%d",
		o.GetAttached(), o.GetInflight(), o.GetInbound(), o.GetOutbound(), o.GetCleanup())
}
