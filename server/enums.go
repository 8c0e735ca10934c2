package server

import (
	"github.com/chatbus/chatbus/internal/enumtab"
	providerv1 "github.com/chatbus/chatbus/proto/chatbus/provider/v1"
	chatbusv1 "github.com/chatbus/chatbus/proto/chatbus/v1"
	"github.com/chatbus/chatbus/server/doctor"
	"github.com/chatbus/chatbus/server/events"
	"github.com/chatbus/chatbus/server/hub"
	"github.com/chatbus/chatbus/server/registry"
	"github.com/chatbus/chatbus/server/reload"
	"github.com/chatbus/chatbus/server/store"
	"github.com/chatbus/chatbus/server/supervise"
)

// The domain's enums cross into chatbus.v1 through these tables, never by
// number (enums_test.go checks each against the proto's descriptor and the
// domain's values). A domain value missing from a table goes out as the
// proto's …_UNSPECIFIED.

var refKinds = enumtab.New(map[store.RefKind]chatbusv1.ReferenceKind{
	store.RefMessage:     chatbusv1.ReferenceKind_REFERENCE_KIND_MESSAGE,
	store.RefFile:        chatbusv1.ReferenceKind_REFERENCE_KIND_FILE,
	store.RefInteraction: chatbusv1.ReferenceKind_REFERENCE_KIND_INTERACTION,
})

var updateKinds = enumtab.New(map[store.UpdateKind]chatbusv1.UpdateKind{
	store.UpdateMessage:       chatbusv1.UpdateKind_UPDATE_KIND_MESSAGE,
	store.UpdateEditedMessage: chatbusv1.UpdateKind_UPDATE_KIND_EDITED_MESSAGE,
	store.UpdateCallbackQuery: chatbusv1.UpdateKind_UPDATE_KIND_CALLBACK_QUERY,
	store.UpdateReaction:      chatbusv1.UpdateKind_UPDATE_KIND_REACTION,
	store.UpdateCommand:       chatbusv1.UpdateKind_UPDATE_KIND_COMMAND,
})

var deadLetterCauses = enumtab.New(map[store.DeadLetterCause]chatbusv1.DeadLetterCause{
	store.DeadLetterConversion: chatbusv1.DeadLetterCause_DEAD_LETTER_CAUSE_CONVERSION,
	store.DeadLetterJournal:    chatbusv1.DeadLetterCause_DEAD_LETTER_CAUSE_JOURNAL,
})

var bindingStatuses = enumtab.New(map[store.Status]chatbusv1.BindingStatus{
	store.StatusActive:    chatbusv1.BindingStatus_BINDING_STATUS_ACTIVE,
	store.StatusStarting:  chatbusv1.BindingStatus_BINDING_STATUS_STARTING,
	store.StatusPending:   chatbusv1.BindingStatus_BINDING_STATUS_PENDING,
	store.StatusSuspended: chatbusv1.BindingStatus_BINDING_STATUS_SUSPENDED,
	store.StatusOffline:   chatbusv1.BindingStatus_BINDING_STATUS_OFFLINE,
	store.StatusStale:     chatbusv1.BindingStatus_BINDING_STATUS_STALE,
	store.StatusFailed:    chatbusv1.BindingStatus_BINDING_STATUS_FAILED,
})

var origins = enumtab.New(map[hub.Origin]chatbusv1.Origin{
	hub.OriginDetached: chatbusv1.Origin_ORIGIN_DETACHED,
	hub.OriginFresh:    chatbusv1.Origin_ORIGIN_FRESH,
	hub.OriginReuse:    chatbusv1.Origin_ORIGIN_REUSE,
	hub.OriginHandoff:  chatbusv1.Origin_ORIGIN_HANDOFF,
})

var providerStates = enumtab.New(map[supervise.State]chatbusv1.ProviderState{
	supervise.StateStarting: chatbusv1.ProviderState_PROVIDER_STATE_STARTING,
	supervise.StateRunning:  chatbusv1.ProviderState_PROVIDER_STATE_RUNNING,
	supervise.StateBackoff:  chatbusv1.ProviderState_PROVIDER_STATE_BACKOFF,
	supervise.StateFatal:    chatbusv1.ProviderState_PROVIDER_STATE_FATAL,
	supervise.StateStopped:  chatbusv1.ProviderState_PROVIDER_STATE_STOPPED,
})

var eventKinds = enumtab.New(map[events.Kind]chatbusv1.EventKind{
	events.FollowerRegistered:   chatbusv1.EventKind_EVENT_KIND_FOLLOWER_REGISTERED,
	events.FollowerReplaced:     chatbusv1.EventKind_EVENT_KIND_FOLLOWER_REPLACED,
	events.FollowerPruned:       chatbusv1.EventKind_EVENT_KIND_FOLLOWER_PRUNED,
	events.FollowerUnregistered: chatbusv1.EventKind_EVENT_KIND_FOLLOWER_UNREGISTERED,
	events.AuthRefused:          chatbusv1.EventKind_EVENT_KIND_AUTH_REFUSED,
	events.SupervisorStarted:    chatbusv1.EventKind_EVENT_KIND_SUPERVISOR_STARTED,
	events.SupervisorStopping:   chatbusv1.EventKind_EVENT_KIND_SUPERVISOR_STOPPING,
	events.Dropped:              chatbusv1.EventKind_EVENT_KIND_EVENTS_DROPPED,
	events.BindingChanged:       chatbusv1.EventKind_EVENT_KIND_BINDING_CHANGED,
	events.BindingFailed:        chatbusv1.EventKind_EVENT_KIND_BINDING_FAILED,
	events.UpdatesDropped:       chatbusv1.EventKind_EVENT_KIND_UPDATES_DROPPED,
	events.Reconciled:           chatbusv1.EventKind_EVENT_KIND_RECONCILED,
	events.ProviderStarted:      chatbusv1.EventKind_EVENT_KIND_PROVIDER_STARTED,
	events.ProviderExited:       chatbusv1.EventKind_EVENT_KIND_PROVIDER_EXITED,
	events.ProviderFatal:        chatbusv1.EventKind_EVENT_KIND_PROVIDER_FATAL,
	events.ProviderHealth:       chatbusv1.EventKind_EVENT_KIND_PROVIDER_HEALTH,
	events.Doctor:               chatbusv1.EventKind_EVENT_KIND_DOCTOR,
	events.ConfigReloaded:       chatbusv1.EventKind_EVENT_KIND_CONFIG_RELOADED,
	events.ConfigRefused:        chatbusv1.EventKind_EVENT_KIND_CONFIG_REFUSED,

	events.ClusterLeaderElected:  chatbusv1.EventKind_EVENT_KIND_CLUSTER_LEADER_ELECTED,
	events.ClusterLeadershipLost: chatbusv1.EventKind_EVENT_KIND_CLUSTER_LEADERSHIP_LOST,
	events.ClusterFenced:         chatbusv1.EventKind_EVENT_KIND_CLUSTER_FENCED,
	events.ClusterRelayFollowed:  chatbusv1.EventKind_EVENT_KIND_CLUSTER_RELAY_FOLLOWED,
	events.ClusterMemberJoined:   chatbusv1.EventKind_EVENT_KIND_CLUSTER_MEMBER_JOINED,
	events.ClusterMemberLeft:     chatbusv1.EventKind_EVENT_KIND_CLUSTER_MEMBER_LEFT,
	events.UpdateDeadLettered:    chatbusv1.EventKind_EVENT_KIND_UPDATE_DEAD_LETTERED,
	events.DeadLetterResolved:    chatbusv1.EventKind_EVENT_KIND_DEAD_LETTER_RESOLVED,

	events.FollowerWayIn:    chatbusv1.EventKind_EVENT_KIND_FOLLOWER_WAY_IN,
	events.VoiceTranscribed: chatbusv1.EventKind_EVENT_KIND_VOICE_TRANSCRIBED,

	events.ControlCommand:     chatbusv1.EventKind_EVENT_KIND_CONTROL_COMMAND,
	events.ControlNotAllowed:  chatbusv1.EventKind_EVENT_KIND_CONTROL_NOT_ALLOWED,
	events.ControlInterrupted: chatbusv1.EventKind_EVENT_KIND_CONTROL_INTERRUPTED,
	events.LaunchStarted:      chatbusv1.EventKind_EVENT_KIND_LAUNCH_STARTED,
	events.LaunchEnded:        chatbusv1.EventKind_EVENT_KIND_LAUNCH_ENDED,
	events.LaunchStopped:      chatbusv1.EventKind_EVENT_KIND_LAUNCH_STOPPED,

	events.FollowerDeliveryHeld:   chatbusv1.EventKind_EVENT_KIND_FOLLOWER_DELIVERY_HELD,
	events.FollowerDeliveryFailed: chatbusv1.EventKind_EVENT_KIND_FOLLOWER_DELIVERY_FAILED,
})

var wayIns = enumtab.New(map[registry.WayIn]chatbusv1.WayIn{
	registry.WayInChannel: chatbusv1.WayIn_WAY_IN_CHANNEL,
	registry.WayInInbox:   chatbusv1.WayIn_WAY_IN_INBOX,
	registry.WayInNone:    chatbusv1.WayIn_WAY_IN_NONE,
})

// wayInFromProto is what a follower says of its way in, for the registry.
func wayInFromProto(w chatbusv1.WayIn, detail string) registry.WayInState {
	d, _ := wayIns.Domain(w)
	return registry.WayInState{WayIn: d, Detail: detail}
}

var changeActions = enumtab.New(map[reload.Action]chatbusv1.ConfigChangeAction{
	reload.Applied:           chatbusv1.ConfigChangeAction_CONFIG_CHANGE_ACTION_APPLIED,
	reload.RestartedProvider: chatbusv1.ConfigChangeAction_CONFIG_CHANGE_ACTION_RESTARTED_PROVIDER,
	reload.Started:           chatbusv1.ConfigChangeAction_CONFIG_CHANGE_ACTION_STARTED,
	reload.Stopped:           chatbusv1.ConfigChangeAction_CONFIG_CHANGE_ACTION_STOPPED,
	reload.NeedsRestart:      chatbusv1.ConfigChangeAction_CONFIG_CHANGE_ACTION_NEEDS_RESTART,
	reload.Failed:            chatbusv1.ConfigChangeAction_CONFIG_CHANGE_ACTION_FAILED,
})

var restartPhases = enumtab.New(map[doctor.Phase]chatbusv1.RestartPhase{
	doctor.PhaseObserve:   chatbusv1.RestartPhase_RESTART_PHASE_OBSERVE,
	doctor.PhasePrepare:   chatbusv1.RestartPhase_RESTART_PHASE_PREPARE,
	doctor.PhaseDrain:     chatbusv1.RestartPhase_RESTART_PHASE_DRAIN,
	doctor.PhaseCommit:    chatbusv1.RestartPhase_RESTART_PHASE_COMMIT,
	doctor.PhaseExitProof: chatbusv1.RestartPhase_RESTART_PHASE_EXIT_PROOF,
	doctor.PhaseSuccessor: chatbusv1.RestartPhase_RESTART_PHASE_SUCCESSOR,
	doctor.PhaseReady:     chatbusv1.RestartPhase_RESTART_PHASE_READY,
})

// outcomeKinds: doctor.Retired is not here; it ends a retirement (a
// provider removed by a reload), never a Restart call.
var outcomeKinds = enumtab.New(map[doctor.Kind]chatbusv1.OutcomeKind{
	doctor.Restarted:           chatbusv1.OutcomeKind_OUTCOME_KIND_RESTARTED,
	doctor.OwnerUnavailable:    chatbusv1.OutcomeKind_OUTCOME_KIND_OWNER_UNAVAILABLE,
	doctor.PrepareRefused:      chatbusv1.OutcomeKind_OUTCOME_KIND_PREPARE_REFUSED,
	doctor.CommitRefused:       chatbusv1.OutcomeKind_OUTCOME_KIND_COMMIT_REFUSED,
	doctor.OldOwnerExitTimeout: chatbusv1.OutcomeKind_OUTCOME_KIND_OLD_OWNER_EXIT_TIMEOUT,
	doctor.SuccessorRefused:    chatbusv1.OutcomeKind_OUTCOME_KIND_SUCCESSOR_REFUSED,
})

// outcomeReasons: doctor.NoReason is the proto's unspecified reason.
var outcomeReasons = enumtab.New(map[doctor.Reason]chatbusv1.OutcomeReason{
	doctor.NoState:             chatbusv1.OutcomeReason_OUTCOME_REASON_NO_STATE,
	doctor.NotConfirmedLive:    chatbusv1.OutcomeReason_OUTCOME_REASON_NOT_CONFIRMED_LIVE,
	doctor.UnsupportedProtocol: chatbusv1.OutcomeReason_OUTCOME_REASON_UNSUPPORTED_PROTOCOL,
	doctor.WriteFailed:         chatbusv1.OutcomeReason_OUTCOME_REASON_WRITE_FAILED,
	doctor.NotAcknowledged:     chatbusv1.OutcomeReason_OUTCOME_REASON_NOT_ACKNOWLEDGED,
	doctor.StartRefused:        chatbusv1.OutcomeReason_OUTCOME_REASON_START_REFUSED,
	doctor.PublicationTimeout:  chatbusv1.OutcomeReason_OUTCOME_REASON_PUBLICATION_TIMEOUT,
})

// fencePhases: a provider's fence phase as the doctor reports it.
var fencePhases = enumtab.New(map[providerv1.Phase]chatbusv1.FencePhase{
	providerv1.Phase_PHASE_IDLE:      chatbusv1.FencePhase_FENCE_PHASE_IDLE,
	providerv1.Phase_PHASE_PREPARED:  chatbusv1.FencePhase_FENCE_PHASE_PREPARED,
	providerv1.Phase_PHASE_COMMITTED: chatbusv1.FencePhase_FENCE_PHASE_COMMITTED,
})
