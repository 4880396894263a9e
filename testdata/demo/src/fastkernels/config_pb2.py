"""Protocol buffer for the quantize kernel's configuration.

Equivalent to what protoc generates for::

    syntax = "proto3";
    package fastkernels;
    message QuantizeConfig { int32 bits = 1; float scale = 2; repeated int64 block = 3; string mode = 4; }

It is built from a descriptor at import time so the example needs no protoc.
"""

from google.protobuf import descriptor_pb2, descriptor_pool, message_factory

_FILE = descriptor_pb2.FileDescriptorProto(name="fastkernels/config.proto", package="fastkernels", syntax="proto3")
_MSG = _FILE.message_type.add(name="QuantizeConfig")
_F = descriptor_pb2.FieldDescriptorProto
for _number, (_name, _type, _label) in enumerate(
    [
        ("bits", _F.TYPE_INT32, _F.LABEL_OPTIONAL),
        ("scale", _F.TYPE_FLOAT, _F.LABEL_OPTIONAL),
        ("block", _F.TYPE_INT64, _F.LABEL_REPEATED),
        ("mode", _F.TYPE_STRING, _F.LABEL_OPTIONAL),
    ],
    start=1,
):
    _MSG.field.add(name=_name, number=_number, type=_type, label=_label)

_POOL = descriptor_pool.DescriptorPool()
_POOL.Add(_FILE)
QuantizeConfig = message_factory.GetMessageClass(_POOL.FindMessageTypeByName("fastkernels.QuantizeConfig"))
