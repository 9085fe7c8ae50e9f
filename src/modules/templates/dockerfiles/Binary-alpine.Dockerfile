# Runs a prebuilt, statically linked program from the repository (./bin/app) on Alpine Linux.
FROM alpine:latest

RUN apk add --no-cache ca-certificates
COPY bin/app /usr/local/bin/app

# The port your program listens on, if it serves anything.
# EXPOSE 8080

CMD ["app"]
