/* SPDX-License-Identifier: MIT */
/*
 * plant.h - the functions of tests/unit/plant/, objects laid out like
 * lib/'s folders and built to break the dependency rule, so that
 * tests/unit/layering_symbols.sh proves on every run that it reports a
 * forbidden use, an unexported API use and a cycle. Nothing links them.
 */
#ifndef SQP_TESTS_PLANT_H
#define SQP_TESTS_PLANT_H

int plant_util(int depth);
int plant_codec(int depth);
int plant_api(int x);
int plant_hidden(int x);
int plant_dir(int x);

#endif
