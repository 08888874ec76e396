"""Generated protobuf and gRPC stubs of proto/pricing/v1/pricing.proto (make proto)."""
