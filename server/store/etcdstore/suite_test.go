package etcdstore_test

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"

	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/chatbus/chatbus/internal/etcdtest"
	"github.com/chatbus/chatbus/server/store"
	"github.com/chatbus/chatbus/server/store/etcdstore"
	"github.com/chatbus/chatbus/server/store/storetest"
)

// TestStoreSuite: etcdstore keeps the store contract (storetest), each
// store under its own prefix of one etcd, the leader of its own election.
// Options.FailWrites makes etcd refuse the store's transactions as a
// member out of space does (its quota alarm).
func TestStoreSuite(t *testing.T) {
	c := etcdtest.Start(t, 1)
	elections := c.Client(t)
	var n atomic.Int64
	storetest.Run(t, storetest.Backend{Open: func(t *testing.T, o storetest.Options) (store.Store, func() store.Store) {
		name := fmt.Sprint("suite", n.Add(1))
		f, _ := leader(t, elections, name, 10)
		cli := c.Client(t)
		if fail := o.FailWrites; fail != nil {
			cli.KV = failingKV{KV: cli.KV, fail: fail}
		}
		opts := etcdstore.Options{Prefix: "/chatbus/" + name + "/state/", Fence: f,
			Limits: o.Limits, SeenMaxCount: o.SeenMaxCount, SeenMaxAge: o.SeenMaxAge,
			MaxSent: o.MaxSent, MaxSlots: o.MaxSlots, Now: o.Now, OnDrop: o.OnDrop}
		return storetest.Reopens(t, func() store.Store {
			s, err := etcdstore.Open(context.Background(), cli, opts)
			if err != nil {
				t.Fatalf("Open: %v", err)
			}
			t.Cleanup(func() { _ = s.Close() })
			return s
		})
	}})
}

// failingKV refuses every transaction while fail holds true, as an etcd
// whose space quota is exhausted does; reads pass.
type failingKV struct {
	clientv3.KV
	fail *atomic.Bool
}

func (k failingKV) Txn(ctx context.Context) clientv3.Txn {
	if k.fail.Load() {
		return refusedTxn{}
	}
	return k.KV.Txn(ctx)
}

type refusedTxn struct{}

func (r refusedTxn) If(...clientv3.Cmp) clientv3.Txn      { return r }
func (r refusedTxn) Then(...clientv3.Op) clientv3.Txn     { return r }
func (r refusedTxn) Else(...clientv3.Op) clientv3.Txn     { return r }
func (refusedTxn) Commit() (*clientv3.TxnResponse, error) { return nil, rpctypes.ErrGRPCNoSpace }
