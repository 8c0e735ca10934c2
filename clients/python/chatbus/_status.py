"""The rich status of a gRPC error: google.rpc.Status and the two details
the supervisor sends, google.rpc.ErrorInfo and google.rpc.RetryInfo.

A gRPC server sends them in the ``grpc-status-details-bin`` trailer, a
serialized ``google.rpc.Status`` whose ``details`` are ``google.protobuf.Any``.
Debian packages no Python code for the ``google.rpc`` protos (there is no
python3-googleapis-common-protos, and python3-grpcio has no grpc_status), so
the three messages are declared here as descriptors, in a descriptor pool of
their own (it does not clash with googleapis-common-protos where that is
installed), and decoded with the protobuf runtime. The field numbers are
those of googleapis' google/rpc/status.proto and error_details.proto.
"""

from __future__ import annotations

from typing import Any, Dict, Iterable, Optional, Tuple

from google.protobuf import any_pb2, descriptor_pb2, descriptor_pool, duration_pb2, message_factory

#: The trailer that carries the serialized google.rpc.Status.
DETAILS_KEY = "grpc-status-details-bin"

_F = descriptor_pb2.FieldDescriptorProto


def _file() -> descriptor_pb2.FileDescriptorProto:
    f = descriptor_pb2.FileDescriptorProto(
        name="chatbus/_rpc_status.proto", package="google.rpc", syntax="proto3",
        dependency=["google/protobuf/any.proto", "google/protobuf/duration.proto"])

    def field(msg: Any, name: str, number: int, type_: int, label: int = _F.LABEL_OPTIONAL,
              type_name: str = "") -> None:
        fd = msg.field.add(name=name, number=number, type=type_, label=label)
        if type_name:
            fd.type_name = type_name

    status = f.message_type.add(name="Status")
    field(status, "code", 1, _F.TYPE_INT32)
    field(status, "message", 2, _F.TYPE_STRING)
    field(status, "details", 3, _F.TYPE_MESSAGE, _F.LABEL_REPEATED, ".google.protobuf.Any")

    info = f.message_type.add(name="ErrorInfo")
    field(info, "reason", 1, _F.TYPE_STRING)
    field(info, "domain", 2, _F.TYPE_STRING)
    field(info, "metadata", 3, _F.TYPE_MESSAGE, _F.LABEL_REPEATED, ".google.rpc.ErrorInfo.MetadataEntry")
    entry = info.nested_type.add(name="MetadataEntry")
    entry.options.map_entry = True
    field(entry, "key", 1, _F.TYPE_STRING)
    field(entry, "value", 2, _F.TYPE_STRING)

    retry = f.message_type.add(name="RetryInfo")
    field(retry, "retry_delay", 1, _F.TYPE_MESSAGE, type_name=".google.protobuf.Duration")
    return f


def _classes() -> Tuple[Any, Any, Any]:
    pool = descriptor_pool.DescriptorPool()
    for dep in (any_pb2.DESCRIPTOR, duration_pb2.DESCRIPTOR):
        proto = descriptor_pb2.FileDescriptorProto()
        dep.CopyToProto(proto)
        pool.Add(proto)
    pool.Add(_file())
    get = getattr(message_factory, "GetMessageClass", None)  # protobuf >= 4.22
    if get is None:
        factory = message_factory.MessageFactory(pool)
        get = factory.GetPrototype
    return tuple(get(pool.FindMessageTypeByName(f"google.rpc.{n}"))  # type: ignore[return-value]
                 for n in ("Status", "ErrorInfo", "RetryInfo"))


Status, ErrorInfo, RetryInfo = _classes()

_TYPE_PREFIX = "type.googleapis.com/"


class Details:
    """What a status says beyond its code and message: the ErrorInfo of
    ``domain`` (its reason and metadata) and the RetryInfo delay."""

    def __init__(self) -> None:
        self.reason = ""
        self.metadata: Dict[str, str] = {}
        self.retry_delay: Optional[float] = None  # seconds


def parse(trailers: Optional[Iterable[Tuple[str, Any]]], domain: str) -> Details:
    """Reads the details out of an RPC's trailing metadata. A trailer that
    does not decode is ignored: the code and message still stand."""
    out = Details()
    raw = None
    for key, value in trailers or ():
        if key == DETAILS_KEY:
            raw = value
    if not raw:
        return out
    try:
        st = Status.FromString(bytes(raw))
        for any_ in st.details:
            name = any_.type_url[len(_TYPE_PREFIX):] if any_.type_url.startswith(_TYPE_PREFIX) else any_.type_url
            if name == "google.rpc.ErrorInfo":
                info = ErrorInfo.FromString(any_.value)
                if info.domain == domain:
                    out.reason = info.reason
                    out.metadata = dict(info.metadata)
            elif name == "google.rpc.RetryInfo":
                d = RetryInfo.FromString(any_.value).retry_delay
                out.retry_delay = d.seconds + d.nanos / 1e9
    except Exception:  # a malformed trailer: keep what was read
        pass
    return out


def encode(code: int, message: str, *, reason: str = "", domain: str = "",
           retry_delay: Optional[float] = None) -> bytes:
    """A serialized google.rpc.Status with an ErrorInfo and a RetryInfo, as
    a server sends it in grpc-status-details-bin (provider-fake uses it)."""
    st = Status(code=code, message=message)
    if retry_delay is not None:
        ri = RetryInfo()
        ri.retry_delay.seconds = int(retry_delay)
        ri.retry_delay.nanos = int(round((retry_delay - int(retry_delay)) * 1e9))
        st.details.add(type_url=_TYPE_PREFIX + "google.rpc.RetryInfo", value=ri.SerializeToString())
    if reason:
        info = ErrorInfo(reason=reason, domain=domain)
        st.details.add(type_url=_TYPE_PREFIX + "google.rpc.ErrorInfo", value=info.SerializeToString())
    data: bytes = st.SerializeToString()
    return data
