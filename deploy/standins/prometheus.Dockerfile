# A stand-in for prom/prometheus: the prometheus binary of Debian's package, unpacked rather
# than installed (its maintainer scripts want a service manager), run as nobody like the
# public image, its data in /prometheus (Debian's build defaults to /var/lib/prometheus, where
# a command without --storage.tsdb.path leaves it). Built by deploy/standins/build.sh.
ARG BASE=local/python:3.11-slim
FROM ${BASE}
RUN apt-get update \
 && cd /tmp && apt-get download prometheus \
 && dpkg-deb -x prometheus_*.deb /tmp/prometheus \
 && mv /tmp/prometheus/usr/bin/prometheus /bin/prometheus \
 && rm -rf /tmp/prometheus* /var/lib/apt/lists/* \
 && mkdir -p /prometheus /etc/prometheus /var/lib/prometheus \
 && chown nobody:nogroup /prometheus /var/lib/prometheus
USER nobody
WORKDIR /prometheus
EXPOSE 9090
ENTRYPOINT ["/bin/prometheus"]
CMD ["--config.file=/etc/prometheus/prometheus.yml", "--storage.tsdb.path=/prometheus"]
