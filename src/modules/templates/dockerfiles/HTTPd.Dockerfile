# Serves the static site in ./public with the Apache HTTP Server.
FROM httpd:alpine

COPY ./public/ /usr/local/apache2/htdocs/

EXPOSE 80
