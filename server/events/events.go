// Package events owns the supervisor's runtime event feed: every event is
// logged and fanned out to watchers (AdminService.WatchEvents). A watcher
// that falls behind loses events, never blocks the publisher, and is told
// how many it lost.
package events

import (
	"strings"
	"sync"
	"time"

	"github.com/rs/zerolog"
)

// Kind classifies events. The server maps each to chatbus.v1.EventKind
// through a table (server/enums.go), tested against the proto.
type Kind int

const (
	FollowerRegistered   Kind = 1
	FollowerReplaced     Kind = 2
	FollowerPruned       Kind = 3
	FollowerUnregistered Kind = 4
	AuthRefused          Kind = 5
	SupervisorStarted    Kind = 6
	SupervisorStopping   Kind = 7
	Dropped              Kind = 8
	BindingChanged       Kind = 9
	BindingFailed        Kind = 10
	UpdatesDropped       Kind = 11
	Reconciled           Kind = 12
	ProviderStarted      Kind = 13
	ProviderExited       Kind = 14
	ProviderFatal        Kind = 15
	ProviderHealth       Kind = 16
	Doctor               Kind = 17
	ConfigReloaded       Kind = 18
	ConfigRefused        Kind = 19
	// The cluster's (server/cluster).
	ClusterLeaderElected  Kind = 20
	ClusterLeadershipLost Kind = 21
	ClusterFenced         Kind = 22
	ClusterRelayFollowed  Kind = 23
	ClusterMemberJoined   Kind = 24
	ClusterMemberLeft     Kind = 25

	// A provider could not convert a platform update: set aside as a dead
	// letter.
	UpdateDeadLettered Kind = 28
	DeadLetterResolved Kind = 29
	// A follower's way in to its agent session changed.
	FollowerWayIn Kind = 30

	// A voice note was transcribed, or could not be (StatusAttr).
	VoiceTranscribed Kind = 34

	// A command sent from the chat's control place was handled
	// (server/control); one from a sender not allowed; one the previous
	// run was running when it stopped.
	ControlCommand     Kind = 40
	ControlNotAllowed  Kind = 41
	ControlInterrupted Kind = 42
	// A session was launched from a launch template, a launched session
	// ended, a launched session was told to stop (server/launch).
	LaunchStarted Kind = 45
	LaunchEnded   Kind = 46
	LaunchStopped Kind = 47

	// A follower's agent session holds an update for approval, or did not
	// deliver it (attributes "status", "seq", "detail").
	FollowerDeliveryHeld   Kind = 48
	FollowerDeliveryFailed Kind = 49
)

var kindNames = map[Kind]string{
	FollowerRegistered:   "follower_registered",
	FollowerReplaced:     "follower_replaced",
	FollowerPruned:       "follower_pruned",
	FollowerUnregistered: "follower_unregistered",
	AuthRefused:          "auth_refused",
	SupervisorStarted:    "supervisor_started",
	SupervisorStopping:   "supervisor_stopping",
	Dropped:              "events_dropped",
	BindingChanged:       "binding_changed",
	BindingFailed:        "binding_failed",
	UpdatesDropped:       "updates_dropped",
	Reconciled:           "reconciled",
	ProviderStarted:      "provider_started",
	ProviderExited:       "provider_exited",
	ProviderFatal:        "provider_fatal",
	ProviderHealth:       "provider_health",
	Doctor:               "doctor",
	ConfigReloaded:       "config_reloaded",
	ConfigRefused:        "config_refused",

	ClusterLeaderElected:  "cluster_leader_elected",
	ClusterLeadershipLost: "cluster_leadership_lost",
	ClusterFenced:         "cluster_fenced",
	ClusterRelayFollowed:  "cluster_relay_followed",
	ClusterMemberJoined:   "cluster_member_joined",
	ClusterMemberLeft:     "cluster_member_left",

	UpdateDeadLettered: "update_dead_lettered",
	DeadLetterResolved: "dead_letter_resolved",
	FollowerWayIn:      "follower_way_in",
	VoiceTranscribed:   "voice_transcribed",
	ControlCommand:     "control_command",
	ControlNotAllowed:  "control_not_allowed",
	ControlInterrupted: "control_interrupted",

	LaunchStarted: "launch_started",
	LaunchEnded:   "launch_ended",
	LaunchStopped: "launch_stopped",

	FollowerDeliveryHeld:   "follower_delivery_held",
	FollowerDeliveryFailed: "follower_delivery_failed",
}

func (k Kind) String() string {
	if s, ok := kindNames[k]; ok {
		return s
	}
	return "unknown"
}

// Event is one runtime event.
type Event struct {
	ID         uint64
	Time       time.Time
	Kind       Kind
	Message    string
	InstanceID string
	Attrs      map[string]string
}

// Hub fans events out. The zero value is not usable; call NewHub.
type Hub struct {
	log zerolog.Logger
	now func() time.Time

	mu       sync.Mutex // guards everything below
	nextID   uint64
	recent   []Event // ring of the last recentCap events
	watchers map[*Watcher]struct{}
}

const (
	recentCap  = 256
	watcherBuf = 256
)

// NewHub returns a Hub that also writes every event to log.
func NewHub(log zerolog.Logger) *Hub {
	return &Hub{log: log, now: time.Now, watchers: make(map[*Watcher]struct{})}
}

// Publish records e (its ID and Time are set here), logs it and offers it to
// every watcher without blocking.
func (h *Hub) Publish(e Event) {
	h.mu.Lock()
	h.nextID++
	e.ID = h.nextID
	e.Time = h.now()
	if len(h.recent) == recentCap {
		copy(h.recent, h.recent[1:])
		h.recent = h.recent[:recentCap-1]
	}
	h.recent = append(h.recent, e)
	for w := range h.watchers {
		w.offer(e)
	}
	h.mu.Unlock()

	ev := h.log.WithLevel(level(e))
	ev = ev.Str("event", e.Kind.String()).Uint64("event_id", e.ID)
	if e.InstanceID != "" {
		ev = ev.Str("instance_id", e.InstanceID)
	}
	for k, v := range e.Attrs {
		ev = ev.Str(k, v)
	}
	ev.Msg(e.Message)
}

// level is the log level of e: warn for what an operator should look at,
// error for a provider given up, info for the rest (a planned exit is
// info, and so is a cluster leadership given up as its node stops). A
// ProviderHealth event
// is info when the provider is SERVING again and warn otherwise.
func level(e Event) zerolog.Level {
	switch e.Kind {
	case ProviderExited:
		if e.Attrs[PlannedAttr] == "true" {
			return zerolog.InfoLevel
		}
		return zerolog.WarnLevel
	case AuthRefused, ControlNotAllowed, ControlInterrupted, FollowerPruned, BindingFailed, UpdatesDropped, ClusterFenced, ClusterMemberLeft, UpdateDeadLettered:
		return zerolog.WarnLevel
	case ClusterLeadershipLost:
		if e.Attrs[ReasonAttr] == "stopped" {
			return zerolog.InfoLevel
		}
		return zerolog.WarnLevel
	case ProviderFatal:
		return zerolog.ErrorLevel
	case VoiceTranscribed:
		if s := e.Attrs["status"]; s == "done" || s == "empty" {
			return zerolog.InfoLevel
		}
		return zerolog.WarnLevel
	case ProviderHealth:
		if HealthStatus(e) == "SERVING" {
			return zerolog.InfoLevel
		}
		return zerolog.WarnLevel
	}
	return zerolog.InfoLevel
}

// PlannedAttr is the attribute of a ProviderExited event that is "true"
// when the exit was asked for (a doctor restart, a stop), not a death.
const PlannedAttr = "planned"

// ReasonAttr is the attribute that says why (a ClusterLeadershipLost
// event's: lease_lost, fenced, supervisor_exited, stopped).
const ReasonAttr = "reason"

// HealthAttr is the attribute of a ProviderHealth event that holds the
// grpc.health.v1 status ("SERVING", "NOT_SERVING", "UNKNOWN").
const HealthAttr = "status"

// HealthStatus returns the health status a ProviderHealth event reports:
// its HealthAttr, else the word after "health: " in its message
// ("provider main health: NOT_SERVING: 409 Conflict…").
func HealthStatus(e Event) string {
	if s := e.Attrs[HealthAttr]; s != "" {
		return s
	}
	_, rest, ok := strings.Cut(e.Message, "health: ")
	if !ok {
		return ""
	}
	word, _, _ := strings.Cut(rest, ":")
	return strings.TrimSpace(word)
}

// Recent returns the events still held, oldest first.
func (h *Hub) Recent() []Event {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]Event(nil), h.recent...)
}

// Watch registers a watcher. With replay, the recent events come first.
// The caller must Close it.
func (h *Hub) Watch(replay bool) *Watcher {
	w := &Watcher{hub: h, ch: make(chan Event, watcherBuf+recentCap)}
	h.mu.Lock()
	defer h.mu.Unlock()
	if replay {
		for _, e := range h.recent {
			w.ch <- e
		}
	}
	h.watchers[w] = struct{}{}
	return w
}

// Watcher receives events from a Hub.
type Watcher struct {
	hub *Hub
	ch  chan Event
	// dropped counts events lost since the last one delivered; guarded by
	// hub.mu.
	dropped uint64
}

// offer is called with hub.mu held.
func (w *Watcher) offer(e Event) {
	if w.dropped > 0 {
		notice := Event{ID: e.ID, Time: e.Time, Kind: Dropped, Message: "events dropped: watcher too slow",
			Attrs: map[string]string{"count": itoa(w.dropped)}}
		select {
		case w.ch <- notice:
			w.dropped = 0
		default:
			w.dropped++
			return
		}
	}
	select {
	case w.ch <- e:
	default:
		w.dropped++
	}
}

// C delivers the events.
func (w *Watcher) C() <-chan Event { return w.ch }

// Close unregisters the watcher.
func (w *Watcher) Close() {
	w.hub.mu.Lock()
	delete(w.hub.watchers, w)
	w.hub.mu.Unlock()
}

func itoa(n uint64) string {
	var b [20]byte
	i := len(b)
	for {
		i--
		b[i] = byte('0' + n%10)
		n /= 10
		if n == 0 {
			return string(b[i:])
		}
	}
}
