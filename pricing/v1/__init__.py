"""Generated protobuf and gRPC stubs of proto/pricing/v1/pricing.proto (make proto), and
``enums``, written by hand: the enum values' prefixes."""
