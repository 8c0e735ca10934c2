package child

import (
	"fmt"

	providerv1 "github.com/chatbus/chatbus/proto/chatbus/provider/v1"
)

// Occupancy counts the work a provider holds; a doctor Commit waits until
// every counter is zero. Each counter is kept where its work happens.
type Occupancy struct {
	// Attached: followers bound through this provider (Attach minus
	// Detach, by instance id).
	Attached uint32
	// Inflight: ProvisionTarget and Attach calls in progress.
	Inflight uint32
	// Inbound: updates delivered on the Updates stream and not yet
	// acknowledged.
	Inbound uint32
	// Outbound: Call, UploadFile and DownloadFile in progress.
	Outbound uint32
	// Cleanup: CloseTarget in progress.
	Cleanup uint32
}

// Zero reports whether nothing is held.
func (o Occupancy) Zero() bool { return o == Occupancy{} }

func (o Occupancy) String() string {
	return fmt.Sprintf("attached=%d inflight=%d inbound=%d outbound=%d cleanup=%d",
		o.Attached, o.Inflight, o.Inbound, o.Outbound, o.Cleanup)
}

// Proto converts o to its wire form.
func (o Occupancy) Proto() *providerv1.Occupancy {
	return &providerv1.Occupancy{
		Attached: o.Attached,
		Inflight: o.Inflight,
		Inbound:  o.Inbound,
		Outbound: o.Outbound,
		Cleanup:  o.Cleanup,
	}
}

// OccupancyFromProto converts the wire form (nil is zero).
func OccupancyFromProto(p *providerv1.Occupancy) Occupancy {
	return Occupancy{
		Attached: p.GetAttached(),
		Inflight: p.GetInflight(),
		Inbound:  p.GetInbound(),
		Outbound: p.GetOutbound(),
		Cleanup:  p.GetCleanup(),
	}
}

// counter names one occupancy counter.
type counter int

const (
	cInflight counter = iota
	cInbound
	cOutbound
	cCleanup
)

func (o *Occupancy) field(c counter) *uint32 {
	switch c {
	case cInflight:
		return &o.Inflight
	case cInbound:
		return &o.Inbound
	case cOutbound:
		return &o.Outbound
	case cCleanup:
		return &o.Cleanup
	}
	panic(fmt.Sprintf("provider: unknown counter %d", c))
}
