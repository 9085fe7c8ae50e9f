# Runs a prebuilt, statically linked program from the repository (./bin/app) in an empty image.
# Build the program without dynamic libraries (for Go: CGO_ENABLED=0).
FROM scratch

COPY bin/app /app

# The port your program listens on, if it serves anything.
# EXPOSE 8080

ENTRYPOINT ["/app"]
