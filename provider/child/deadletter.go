package child

import (
	"github.com/chatbus/chatbus/provider"

	"context"

	"google.golang.org/grpc/codes"
	"google.golang.org/protobuf/types/known/timestamppb"

	providerv1 "github.com/chatbus/chatbus/proto/chatbus/provider/v1"
)

// convertUpdate serves ConvertUpdate: the Platform's [provider.Converter], its
// failure (a panic too) made a dead letter again.
func (s *Server) convertUpdate(ctx context.Context, req *providerv1.ConvertUpdateRequest) (*providerv1.Update, error) {
	c, ok := s.cfg.Platform.(provider.Converter)
	if !ok {
		return nil, &provider.Error{Code: codes.Unimplemented, Message: "the " + s.cfg.Name + " provider cannot convert an update apart from its receive loop"}
	}
	u := provider.Convert(req.GetPayload(), func() (*providerv1.Update, error) {
		return c.ConvertUpdate(ctx, req.GetPayload(), req.GetKind(), req.GetDedupId())
	})
	if u == nil {
		return nil, nil
	}
	if u.GetDedupId() == "" {
		u.DedupId = req.GetDedupId()
	}
	if u.GetKind() == providerv1.UpdateKind_UPDATE_KIND_UNSPECIFIED {
		u.Kind = req.GetKind()
	}
	if u.GetReceivedAt() == nil {
		u.ReceivedAt = timestamppb.Now()
	}
	return u, nil
}
