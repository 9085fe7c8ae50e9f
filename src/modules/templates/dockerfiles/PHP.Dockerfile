# Serves a PHP application from the repository with Apache and mod_php; dependencies come from
# Composer when the project has a composer.json.
FROM php:apache

RUN apt-get update && apt-get install -y --no-install-recommends unzip && rm -rf /var/lib/apt/lists/*
COPY --from=composer:latest /usr/bin/composer /usr/local/bin/composer

WORKDIR /var/www/html
COPY . .
RUN if [ -f composer.json ]; then composer install --no-dev --no-interaction --prefer-dist; fi

EXPOSE 80
