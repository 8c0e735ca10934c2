from google.protobuf import timestamp_pb2 as _timestamp_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from typing import ClassVar as _ClassVar, Iterable as _Iterable, Mapping as _Mapping, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class ClusterLeader(_message.Message):
    __slots__ = ["address", "fence_revision", "lease_remaining_seconds", "lease_ttl_seconds", "node", "provider", "since"]
    ADDRESS_FIELD_NUMBER: _ClassVar[int]
    FENCE_REVISION_FIELD_NUMBER: _ClassVar[int]
    LEASE_REMAINING_SECONDS_FIELD_NUMBER: _ClassVar[int]
    LEASE_TTL_SECONDS_FIELD_NUMBER: _ClassVar[int]
    NODE_FIELD_NUMBER: _ClassVar[int]
    PROVIDER_FIELD_NUMBER: _ClassVar[int]
    SINCE_FIELD_NUMBER: _ClassVar[int]
    address: str
    fence_revision: int
    lease_remaining_seconds: int
    lease_ttl_seconds: int
    node: str
    provider: str
    since: _timestamp_pb2.Timestamp
    def __init__(self, provider: _Optional[str] = ..., node: _Optional[str] = ..., address: _Optional[str] = ..., since: _Optional[_Union[_timestamp_pb2.Timestamp, _Mapping]] = ..., fence_revision: _Optional[int] = ..., lease_ttl_seconds: _Optional[int] = ..., lease_remaining_seconds: _Optional[int] = ...) -> None: ...

class ClusterMember(_message.Message):
    __slots__ = ["address", "fenced", "followers", "leading", "node", "started_at", "terms"]
    ADDRESS_FIELD_NUMBER: _ClassVar[int]
    FENCED_FIELD_NUMBER: _ClassVar[int]
    FOLLOWERS_FIELD_NUMBER: _ClassVar[int]
    LEADING_FIELD_NUMBER: _ClassVar[int]
    NODE_FIELD_NUMBER: _ClassVar[int]
    STARTED_AT_FIELD_NUMBER: _ClassVar[int]
    TERMS_FIELD_NUMBER: _ClassVar[int]
    address: str
    fenced: int
    followers: int
    leading: bool
    node: str
    started_at: _timestamp_pb2.Timestamp
    terms: int
    def __init__(self, node: _Optional[str] = ..., address: _Optional[str] = ..., leading: bool = ..., followers: _Optional[int] = ..., terms: _Optional[int] = ..., fenced: _Optional[int] = ..., started_at: _Optional[_Union[_timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class GetClusterRequest(_message.Message):
    __slots__ = []
    def __init__(self) -> None: ...

class GetClusterResponse(_message.Message):
    __slots__ = ["cluster", "leaders", "members", "node"]
    CLUSTER_FIELD_NUMBER: _ClassVar[int]
    LEADERS_FIELD_NUMBER: _ClassVar[int]
    MEMBERS_FIELD_NUMBER: _ClassVar[int]
    NODE_FIELD_NUMBER: _ClassVar[int]
    cluster: str
    leaders: _containers.RepeatedCompositeFieldContainer[ClusterLeader]
    members: _containers.RepeatedCompositeFieldContainer[ClusterMember]
    node: str
    def __init__(self, cluster: _Optional[str] = ..., node: _Optional[str] = ..., leaders: _Optional[_Iterable[_Union[ClusterLeader, _Mapping]]] = ..., members: _Optional[_Iterable[_Union[ClusterMember, _Mapping]]] = ...) -> None: ...
