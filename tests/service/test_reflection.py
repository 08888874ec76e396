"""Server reflection of a real server, as a client of ``grpc.reflection.v1`` (what grpcurl asks
for first) and of ``grpc.reflection.v1alpha`` sees it.

grpcio-reflection ships no v1 module, so the v1 client's messages are compiled here from v1's
published contract (``V1_PROTO``, grpc/reflection/v1/reflection.proto less its comments) into a
descriptor pool of the test's own: nothing of the server's code builds them.
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable
from typing import Any

import grpc
import pytest
from google.protobuf import descriptor_pb2, descriptor_pool, message_factory
from grpc_reflection.v1alpha import reflection_pb2 as v1alpha

from tests.support.server import ServerProcess, start_server

pytestmark = pytest.mark.timeout(60)

V1_PROTO = """
syntax = "proto3";
package grpc.reflection.v1;
service ServerReflection {
  rpc ServerReflectionInfo(stream ServerReflectionRequest)
      returns (stream ServerReflectionResponse);
}
message ServerReflectionRequest {
  string host = 1;
  oneof message_request {
    string file_by_filename = 3;
    string file_containing_symbol = 4;
    ExtensionRequest file_containing_extension = 5;
    string all_extension_numbers_of_type = 6;
    string list_services = 7;
  }
}
message ExtensionRequest {
  string containing_type = 1;
  int32 extension_number = 2;
}
message ServerReflectionResponse {
  string valid_host = 1;
  ServerReflectionRequest original_request = 2;
  oneof message_response {
    FileDescriptorResponse file_descriptor_response = 4;
    ExtensionNumberResponse all_extension_numbers_response = 5;
    ListServiceResponse list_services_response = 6;
    ErrorResponse error_response = 7;
  }
}
message FileDescriptorResponse { repeated bytes file_descriptor_proto = 1; }
message ExtensionNumberResponse {
  string base_type_name = 1;
  repeated int32 extension_number = 2;
}
message ListServiceResponse { repeated ServiceResponse service = 1; }
message ServiceResponse { string name = 1; }
message ErrorResponse {
  int32 error_code = 1;
  string error_message = 2;
}
"""

SERVICES = {
    "grpc.health.v1.Health",
    "grpc.reflection.v1.ServerReflection",
    "grpc.reflection.v1alpha.ServerReflection",
    "pricing.v1.DealerService",
    "pricing.v1.PricingService",
}


@pytest.fixture(scope="module")
def v1_messages(tmp_path_factory: pytest.TempPathFactory) -> tuple[Any, Any]:
    """v1's request and response classes, compiled by protoc into a pool of their own."""
    where = tmp_path_factory.mktemp("reflection")
    (where / "grpc/reflection/v1").mkdir(parents=True)
    (where / "grpc/reflection/v1/reflection.proto").write_text(V1_PROTO)
    compiled = subprocess.run(
        [
            sys.executable,
            "-m",
            "grpc_tools.protoc",
            f"-I{where}",
            f"--descriptor_set_out={where / 'v1.pb'}",
            "grpc/reflection/v1/reflection.proto",
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert compiled.returncode == 0, compiled.stderr
    files = descriptor_pb2.FileDescriptorSet.FromString((where / "v1.pb").read_bytes())
    pool = descriptor_pool.DescriptorPool()
    for file in files.file:
        pool.Add(file)
    request, response = (
        message_factory.GetMessageClass(pool.FindMessageTypeByName(f"grpc.reflection.v1.{name}"))
        for name in ("ServerReflectionRequest", "ServerReflectionResponse")
    )
    return request, response


@pytest.fixture(scope="module")
def server() -> Any:
    running = start_server()
    yield running
    assert running.stop() == 0, running.log()


def ask(
    server: ServerProcess,
    version: str,
    request_class: Any,
    response_class: Any,
    **request: str,
) -> Any:
    """One request on a reflection stream of ``version`` ('v1', 'v1alpha'); its answer."""
    call: Callable[..., Any] = server.channel().stream_stream(
        f"/grpc.reflection.{version}.ServerReflection/ServerReflectionInfo",
        request_serializer=request_class.SerializeToString,
        response_deserializer=response_class.FromString,
    )
    (answer,) = list(call(iter([request_class(**request)]), timeout=10))
    return answer


def test_a_v1_reflection_client_lists_and_describes_every_service(
    server: ServerProcess, v1_messages: tuple[Any, Any]
) -> None:
    request, response = v1_messages
    listed = ask(server, "v1", request, response, list_services="")
    assert listed.WhichOneof("message_response") == "list_services_response"
    assert {s.name for s in listed.list_services_response.service} == SERVICES
    for name in SERVICES:  # grpcurl's describe: the file declaring each service listed
        found = ask(server, "v1", request, response, file_containing_symbol=name)
        assert found.WhichOneof("message_response") == "file_descriptor_response", (name, found)
        files = [
            descriptor_pb2.FileDescriptorProto.FromString(data)
            for data in found.file_descriptor_response.file_descriptor_proto
        ]
        package, _, service = name.rpartition(".")
        assert any(
            f.package == package and service in [s.name for s in f.service] for f in files
        ), name


def test_v1alpha_reflection_still_answers(server: ServerProcess) -> None:
    listed = ask(
        server,
        "v1alpha",
        v1alpha.ServerReflectionRequest,
        v1alpha.ServerReflectionResponse,
        list_services="",
    )
    assert {s.name for s in listed.list_services_response.service} == SERVICES


def test_no_reflection_switches_both_off() -> None:
    running = start_server("--no-reflection")
    try:
        for version in ("v1", "v1alpha"):
            with pytest.raises(grpc.RpcError) as refused:
                ask(
                    running,
                    version,
                    v1alpha.ServerReflectionRequest,
                    v1alpha.ServerReflectionResponse,
                    list_services="",
                )
            assert refused.value.code() == grpc.StatusCode.UNIMPLEMENTED
    finally:
        assert running.stop() == 0, running.log()


def test_the_v1_proto_compiled_here_is_v1alpha_renamed(v1_messages: tuple[Any, Any]) -> None:
    """What the server's v1 answers rest on: v1's messages are v1alpha's, field for field."""
    for v1_class, alpha_class in zip(
        v1_messages,
        (v1alpha.ServerReflectionRequest, v1alpha.ServerReflectionResponse),
        strict=True,
    ):
        fields = {(f.name, f.number, f.type) for f in v1_class.DESCRIPTOR.fields}
        assert fields == {(f.name, f.number, f.type) for f in alpha_class.DESCRIPTOR.fields}
