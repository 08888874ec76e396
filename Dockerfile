# The pricing service in a container: build the wheel with a compiler, run it without one.
#
#   make image                    # docker build -t live-odds-pricing .
#   deploy/make-secrets.sh        # a demo CA, a server certificate, token files
#   docker run --rm -v pricing-data:/var/lib/pricing -v "$PWD/deploy/secrets:/secrets:ro" \
#     -e PRICING_TLS_CERT=/secrets/server.crt -e PRICING_TLS_KEY=/secrets/server.key \
#     -e PRICING_DEALER_TOKENS_FILE=/secrets/dealers.txt \
#     -e PRICING_READER_TOKENS_FILE=/secrets/readers.txt \
#     -p 127.0.0.1:50051:50051 -p 127.0.0.1:9464:9464 live-odds-pricing
#
# The install steps are docs/operations/docker.md's "Install as a package": `pip wheel .`, then
# install the wheel. The base is a build argument so that a machine without the public registries
# builds on an equivalent (`make standins`, then `make image PYTHON_IMAGE=local/python:3.11-slim`).
ARG PYTHON_IMAGE=python:3.11-slim

# ---- build: compile the Cython extension into a wheel ----------------------------------------
FROM ${PYTHON_IMAGE} AS build
RUN apt-get update \
 && apt-get install -y --no-install-recommends gcc libc6-dev \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY pyproject.toml setup.py README.md ./
COPY ext ext
COPY pricing pricing
RUN python -m pip wheel --no-cache-dir --no-deps --wheel-dir /wheels .

# ---- run: the wheel and its dependencies, no compiler, not root -------------------------------
FROM ${PYTHON_IMAGE}
COPY --from=build /wheels /wheels
# With the [nats] extra: the same image runs as a replica (PRICING_JOURNAL, deploy/compose.yaml).
RUN python -m pip install --no-cache-dir "$(ls /wheels/*.whl)[nats]" \
 && rm -rf /wheels \
 && useradd --system --uid 10001 --no-create-home --shell /usr/sbin/nologin pricing \
 && mkdir -p /var/lib/pricing \
 && chown pricing /var/lib/pricing
USER pricing
# The table journal (SQLite): mount a volume here, or every table is lost with the container.
VOLUME /var/lib/pricing
# Inside a container the service must listen beyond loopback; publish the ports with care. So
# bound, it refuses to start without TLS and dealer and reader tokens (PRICING_TLS_CERT,
# PRICING_TLS_KEY, PRICING_DEALER_TOKENS_FILE, PRICING_READER_TOKENS_FILE) unless
# PRICING_INSECURE=1: nobody who reaches the port by accident can read or write.
ENV PRICING_HOST=0.0.0.0 \
    PRICING_PORT=50051 \
    PRICING_METRICS_PORT=9464 \
    PRICING_LOG_LEVEL=INFO \
    PRICING_DATA_DIR=/var/lib/pricing \
    PYTHONUNBUFFERED=1
EXPOSE 50051 9464
# The gRPC health service (grpc.health.v1): healthy only while it reports SERVING. Served with
# TLS, the check verifies the certificate (which must name 127.0.0.1) against PRICING_TLS_CA,
# else against the certificate file itself, which then has to hold its chain up to the CA.
HEALTHCHECK --interval=10s --timeout=5s --start-period=10s --retries=3 \
  CMD pricing health --server "127.0.0.1:${PRICING_PORT}" --timeout 3 \
      ${PRICING_TLS_CERT:+--tls-ca "${PRICING_TLS_CA:-$PRICING_TLS_CERT}"} || exit 1
STOPSIGNAL SIGTERM
ENTRYPOINT ["pricing", "serve"]
